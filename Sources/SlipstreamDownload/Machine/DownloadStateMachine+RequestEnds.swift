extension DownloadStateMachine {
    /// The requests among `actions` (not sent yet) cut to where their assignments end now: a
    /// connection planned after another in the same round takes the back half of its range,
    /// and a request asking beyond its assignment's end would be stopped there, closing its
    /// connection, where one that reads its answer to the end keeps it open for the next
    /// request (no new connection to set up; on a server that limits each connection, no new
    /// draw of a rate).
    mutating func fittingRequests(_ actions: [Action]) -> [Action] {
        actions.map { action in
            guard case .request(var request) = action, let end = request.end,
                let id = connections[request.connection]?.assignment, let assigned = map?.assignment(id)?.end,
                assigned < end
            else { return action }
            request.end = assigned
            connections[request.connection]?.requestEnd = assigned
            return .request(request)
        }
    }
}
