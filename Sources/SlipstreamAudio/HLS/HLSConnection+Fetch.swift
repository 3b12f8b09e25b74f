import SlipstreamDownload
import SlipstreamHTTP

/// The thread's fetches: playlists, keys, initialization sections, a segment's transfer and its
/// last bytes. Each small fetch waits on the thread; cancelling the connection cancels it.
extension HLSConnection {
    /// The playlist at `url` (the one already read, the first time), parsed: what the machine is fed.
    func loadPlaylist(_ url: String) -> HLSFetchMachine.Input {
        do throws(AudioStreamerError) {
            let document = shell.withLock { state in url == setup.url ? state.document.take() : nil }
            let (bytes, base) = if let document { (document.bytes, document.base) } else { try fetchPlaylist(url) }
            do throws(PlaylistError) {
                return .playlistLoaded(try HLSPlaylistParser.parse(bytes), url: url, base: base, at: Self.now())
            } catch {
                throw HLSFetchMachine.error(.unsupportedFormat, "\(url): \(error.message)")
            }
        } catch {
            return .playlistFailed(error, at: Self.now())
        }
    }

    /// A playlist's bytes and the URL that answered.
    private func fetchPlaylist(_ url: String) throws(AudioStreamerError) -> ([UInt8], String) {
        let response = try fetchWhole(url, range: nil, limit: HLSPlaylistParser.maximumSize + 1, what: "playlist")
        return (response.body, response.head.effectiveURL.isEmpty ? url : response.head.effectiveURL)
    }

    /// Starts attempt `attempt` at `part`'s segment (`delivered`: the audio bytes earlier ones
    /// gave): from its bytes fetched ahead when `prefetched` and they came, else streamed.
    func startSegment(_ part: HLSFetchMachine.Part, attempt: Int, delivered: Int, prefetched: Bool) throws(AudioStreamerError) {
        let segment = part.segment
        let decryptor = try decryption(segment.key, base: part.base, sequence: segment.sequence, url: part.url, what: "segment").map {
            decryption throws(AudioStreamerError) in try Self.decryptor(decryption, url: part.url)
        }
        let body = prefetched ? (try? prefetcher.take(part.key)?.get()) : nil
        // (Bytes fetched ahead were counted as they came.)
        let receiver = HLSSegmentReceiver(
            connection: self, reader: HLSSegmentReader(kind: segment.map == nil ? nil : .fragmentedMP4), decryptor: decryptor,
            range: segment.byteRange, alreadyDelivered: delivered, countsTraffic: body == nil)
        let transfer: any AudioSourceConnection
        if let body {
            transfer = HLSBufferedTransfer.start(body, offset: segment.byteRange?.offset ?? 0, receiver: receiver)
        } else {
            setup.traffic.withLock { $0.requests += 1 }
            transfer = HTTPAudioSource(template: setup.request(part.url), engine: setup.engine).open(
                AudioSourceRequest(offset: segment.byteRange?.offset ?? 0, length: segment.byteRange?.length), receiver: receiver)
        }
        let cancelled = shell.withLock { state in
            state.segment = (transfer, receiver)
            return state.machine.isOver
        }
        if cancelled { transfer.cancel() }
    }

    /// The last audio bytes of `part`'s segment, whose transfer ended.
    func finishSegment(_ part: HLSFetchMachine.Part) -> HLSFetchMachine.Input {
        guard let receiver = shell.withLock({ $0.segment.take()?.receiver }) else { return .tailRead([], at: Self.now()) }
        do throws(HLSSegmentReader.Failure) {
            return .tailRead(try receiver.finish(), at: Self.now())
        } catch {
            return .failed(HLSFetchMachine.error(.unsupportedFormat, "\(part.url): \(error.message)"))
        }
    }

    /// The AES-128 key at `uri` (resolved against `base`), fetched once per URL.
    func key(_ uri: String, base: String) throws(AudioStreamerError) -> [UInt8] {
        let url = try HLSFetchMachine.resolve(uri, base: base).get()
        if let key = shell.withLock({ $0.keys[url] }) { return key }
        let key = try fetchWhole(url, range: nil, limit: 1024, what: "key").body
        guard key.count == 16 else {
            throw HLSFetchMachine.error(.unsupportedFormat, "\(url): an AES-128 key is 16 bytes, this one has \(key.count)")
        }
        shell.withLock { $0.keys[url] = key }
        return key
    }

    /// The bytes of `map`, the initialization section of `part`'s segment, decrypted when a key
    /// applies.
    func initializationSection(_ map: HLSMediaPlaylist.Map, of part: HLSFetchMachine.Part) throws(AudioStreamerError) -> [UInt8] {
        let url = try HLSFetchMachine.resolve(map.uri, base: part.base).get()
        let bytes = try fetchWhole(url, range: map.byteRange, limit: 16 << 20, what: "initialization section").body
        guard
            let decryption = try decryption(
                map.key, base: part.base, sequence: part.segment.sequence, url: url, what: "initialization section")
        else { return bytes }
        let decryptor = try Self.decryptor(decryption, url: url)
        do throws(HLSDecryptor.Failure) {
            return try decryptor.decryptAll(bytes)
        } catch {
            throw HLSFetchMachine.error(.unsupportedFormat, "\(url): \(error.message)")
        }
    }

    /// The key and IV of what `key` encrypts (the `what` at `url`, for segment `sequence`); nil
    /// when nothing does. A method other than AES-128 is refused by name.
    private func decryption(_ key: HLSMediaPlaylist.Key?, base: String, sequence: Int64, url: String, what: String)
        throws(AudioStreamerError) -> (key: [UInt8], iv: [UInt8])?
    {
        guard let key else { return nil }
        guard case .aes128 = key.method else {
            let method = if case .other(let name) = key.method { name } else { "" }
            throw HLSFetchMachine.error(.unsupportedFormat, "\(url): the HLS \(what) is encrypted (\(method)), which is not played")
        }
        return (try self.key(key.uri, base: base), key.iv(sequence: sequence))
    }

    /// A decryptor with `decryption`'s key and IV.
    private static func decryptor(_ decryption: (key: [UInt8], iv: [UInt8]), url: String) throws(AudioStreamerError) -> HLSDecryptor {
        do throws(HLSDecryptor.Failure) {
            return try HLSDecryptor(key: decryption.key, iv: decryption.iv)
        } catch {
            throw HLSFetchMachine.error(.unsupportedFormat, "\(url): \(error.message)")
        }
    }

    /// A whole small response (at most `limit` bytes), from the thread; a range is cut out of
    /// a server's whole answer when it sends no 206.
    func fetchWhole(_ url: String, range: HLSMediaPlaylist.ByteRange?, limit: Int, what: String) throws(AudioStreamerError)
        -> HTTPResponse
    {
        var request = setup.request(url)
        request.range = range.map { HTTPRequest.ByteRange(start: $0.offset, end: $0.offset + $0.length - 1) }
        let transfer = setup.engine.fetch(request, maxBodyBytes: limit) { [self] result in
            shell.withLock { $0.fetched = result }
            wake.signal()
        }
        let cancelled = shell.withLock { state in
            state.fetchTransfer = transfer
            return state.machine.isOver
        }
        if cancelled { transfer.cancel() }
        let result = fetched()
        setup.traffic.withLock { traffic in
            traffic.requests += 1
            if case .success(let response) = result { traffic.bytes += Int64(response.body.count) }
        }
        switch result {
        case .failure(let error):
            throw AudioStreamerError(error)
        case .success(var response):
            guard response.head.isSuccess else {
                throw AudioStreamerError(
                    HTTPError(
                        .httpStatus, url: url, message: "the HLS \(what) got HTTP \(response.head.statusText)", status: response.head.status
                    ))
            }
            if let range, response.head.status == 200 {
                let start = Int(clamping: range.offset), end = Int(clamping: range.offset + range.length)
                response.body = Array(response.body[min(start, response.body.count)..<min(end, response.body.count)])
            }
            return response
        }
    }

    /// Waits for the small fetch's result (it ends, cancelled or not) and takes it.
    private func fetched() -> Result<HTTPResponse, HTTPError> {
        while true {
            let result = shell.withLock { state in
                defer { if state.fetched != nil { (state.fetched, state.fetchTransfer) = (nil, nil) } }
                return state.fetched
            }
            if let result { return result }
            wake.wait()
        }
    }
}
