@testable import SlipstreamDownload
import SlipstreamHTTP
import Testing

/// A download machine against a model network on a simulated clock (no I/O, no wall clock):
/// TCP connections, each with its rate (by client port, as the benchmarks' nginx limits by
/// port), a set-up time from a request to its first byte (a new connection's, or one kept
/// alive's), bytes in slices as the rate allows, the watchdog every `tickInterval`, and a writer
/// that takes everything at once.
///
/// A transfer that reads its body to the end leaves its connection open for the next request
/// (libcurl's connection cache); one stopped before (cancelled, or its range cut short by
/// another connection taking the tail) closes it, and the next request opens a new one on the
/// next port.
struct NetworkSimulation {
    /// The network the download runs on.
    struct Network {
        /// Bytes per second of a connection from client port `port`.
        var rate: (Int) -> Double
        /// Seconds from a request to its first byte on a connection kept alive.
        var requestSetup: Double
        /// Seconds from a request to its first byte on a new connection (connect, then request).
        var connectSetup: Double
        /// The port of the first connection; each new one takes the next.
        var firstPort = 1
        /// Bytes of a slice: one comes whenever the rate allows a whole one.
        var slice: Int64 = 16 << 10
        /// How a server that limits each request sends, where it sends in bursts (nil: evenly).
        var bursts: Bursts?
        /// Where connections count against a host limit, as `get`'s queue has them: the
        /// seconds a request for permits takes to be granted (nil: no host limit).
        var permitDelay: Double?
    }

    /// nginx's `limit_rate` with `sendfile on`: a request's bytes go in bursts of up to
    /// `sendfile_max_chunk` (2 MiB) at the link's speed, the next burst once the rate allows
    /// the last one (a 2 MiB burst every 0.1 s at 20 MiB/s), the first at once.
    struct Bursts {
        var size: Int64 = 2 << 20
        /// Bytes per second of the link, shared by the bursts under way (the client takes
        /// about 1.5 GB/s of loopback TCP in all: sixteen bursts at once take 22 ms).
        var linkRate = 1.5e9
    }

    /// One TCP connection.
    struct Socket {
        var port: Int
        var rate: Double
    }

    /// A transfer on its connection: when its answer comes, and the bytes the rate allows.
    private struct Running {
        var socket: Socket
        var answerAt: Double
        var credit = 0.0
        /// With bursts: the bytes of the burst being sent, and when the next one may start.
        var burstLeft: Int64 = 0
        var nextBurstAt = 0.0
    }

    /// What a run came to.
    struct Outcome {
        /// Simulated seconds from the first request to the rename.
        var seconds: Double
        /// Requests the machine made, and connections opened for them.
        var requests: Int
        var connectionsOpened: Int
        var succeeded: Bool
    }

    /// Seconds of one step of the clock.
    static let step = 0.0005

    var driver: MachineDriver
    let network: Network
    private var running: [Int: Running] = [:]
    /// With bursts: how many transfers share the link in this step.
    private var bursting = 0
    /// Permit requests told, and when each is granted.
    private var permitsTold = 0
    private var grants: [(at: Double, count: Int)] = []
    private var idle: [Socket] = []
    private var nextPort: Int
    private var requests = 0
    private var opened = 0

    /// A download of `size` bytes over at most `connections` connections.
    init(size: Int64, connections: Int, network: Network, settings: (inout DownloadStateMachine.Settings) -> Void = { _ in }) {
        driver = MachineDriver(server: .init(size: size)) { values in
            values.connections = connections
            values.minimumSplitSize = 1 << 20
            values.limitsHosts = network.permitDelay != nil
            settings(&values)
        }
        self.network = network
        nextPort = network.firstPort
    }

    /// Runs the download to its end (or `limit` simulated seconds).
    mutating func run(limit: Double = 600) -> Outcome {
        var nextTick = DownloadStateMachine.tickInterval
        while !driver.isDone, driver.now < limit {
            connectNewTransfers()
            bursting = running.values.filter { $0.burstLeft > 0 }.count
            for number in driver.transfers.keys.sorted() {
                move(number)
                // Requests made as a transfer ended go out at once, on its connection if it stays open.
                connectNewTransfers()
            }
            grantPermits()
            if driver.writerFinishing { driver.finishWriter() }
            guard !driver.isDone else { break }
            driver.now += Self.step
            if driver.now >= nextTick {
                nextTick += DownloadStateMachine.tickInterval
                driver.apply(driver.machine.tick(at: driver.now))
            }
        }
        driver.checkEnd()
        let succeeded = if case .success? = driver.outcomes.first { true } else { false }
        return Outcome(seconds: driver.now, requests: requests, connectionsOpened: opened, succeeded: succeeded)
    }

    /// Grants the permits asked for once their delay is over.
    private mutating func grantPermits() {
        guard let delay = network.permitDelay else { return }
        for count in driver.permitRequests.dropFirst(permitsTold) { grants.append((driver.now + delay, count)) }
        permitsTold = driver.permitRequests.count
        while let first = grants.first, first.at <= driver.now {
            grants.removeFirst()
            driver.apply(driver.machine.permitsGranted(first.count, at: driver.now))
        }
    }

    /// Gives each new request a connection: one kept alive, else a new one on the next port.
    private mutating func connectNewTransfers() {
        for number in driver.transfers.keys.sorted() where running[number] == nil {
            requests += 1
            if !idle.isEmpty {
                running[number] = Running(socket: idle.removeFirst(), answerAt: driver.now + network.requestSetup)
            } else {
                opened += 1
                let socket = Socket(port: nextPort, rate: network.rate(nextPort))
                nextPort += 1
                running[number] = Running(socket: socket, answerAt: driver.now + network.connectSetup)
            }
        }
    }

    /// One step of transfer `number`: its cancel carried out, its answer, or the slices its rate
    /// allows in the step.
    private mutating func move(_ number: Int) {
        guard let transfer = driver.transfers[number], var state = running[number] else { return }
        if transfer.cancelled { return close(number) }
        guard transfer.answered else {
            if driver.now >= state.answerAt { driver.answer(number) }
            if driver.transfers[number] == nil { close(number) }
            return
        }
        if let bursts = network.bursts {
            if state.burstLeft == 0, driver.now >= max(state.nextBurstAt, state.answerAt) {
                state.burstLeft = min(bursts.size, transfer.end - transfer.request.start - transfer.consumed)
                state.nextBurstAt = driver.now + Double(state.burstLeft) / state.socket.rate
            }
            state.credit += Double(min(state.burstLeft, Int64(bursts.linkRate * Self.step / Double(max(1, bursting)))))
        } else {
            state.credit += state.socket.rate * Self.step
        }
        running[number] = state
        while let current = driver.transfers[number] {
            let position = current.request.start + current.consumed
            let slice = min(network.slice, current.end - position)
            guard Double(slice) <= running[number]!.credit else { return }
            running[number]!.credit -= Double(slice)
            if network.bursts != nil { running[number]!.burstLeft = max(0, running[number]!.burstLeft - slice) }
            driver.deliver(number, count: Int(slice))
            guard driver.transfers[number] == nil else { continue }
            // Read to the end of its body: the connection stays open for the next request.
            if position + slice == current.end {
                idle.append(running.removeValue(forKey: number)!.socket)
            } else {
                close(number)
            }
        }
    }

    /// Transfer `number` stops before its body's end: its connection closes.
    private mutating func close(_ number: Int) {
        if driver.transfers[number] != nil { driver.end(number) }
        running[number] = nil
    }
}
