/// The states of an `HLSFetchMachine`, each carrying the values that exist in it.
extension HLSFetchMachine {
    /// Where the connection is.
    enum Phase: Hashable, Sendable {
        /// The thread has not started.
        case idle
        /// The playlist is being fetched (`variant`: the one a master playlist chose).
        case loading(variant: Bool)
        /// Segments' heads are read to find where the time asked for falls.
        case locating(Locating)
        /// The answer was given; the receiver has not taken it yet.
        case opening(Opening)
        /// The playlist is followed, its segments played.
        case following(Following)
        /// Stopped: the thread ends at its next input, telling nothing.
        case stopping
        /// The thread ended.
        case over
    }

    /// The media playlist followed, with where it is reloaded from and where its entries resolve.
    struct Media: Hashable, Sendable {
        var playlist: HLSMediaPlaylist
        var url: String
        var base: String
    }

    /// The search for the segment holding `time`.
    struct Locating: Hashable, Sendable {
        var media: Media
        var time: Double
        /// The first timestamps read so far, by segment index (nil: the segment has none).
        var timestamps: [Int: Int64?] = [:]
    }

    /// The answer given: where playing starts.
    struct Opening: Hashable, Sendable {
        var media: Media
        /// The first segment's sequence number (nil: where the follower starts).
        var sequence: Int64?
        var startTime: AudioSourceAnswer.StartTime?
    }

    /// Following the playlist.
    struct Following: Hashable, Sendable {
        var media: Media
        var follower: HLSMediaFollower
        /// The initialization section given last.
        var map: HLSMediaPlaylist.Map?
        /// The segment playing, then those after it (`segmentsAhead` at most): what the fetches
        /// ahead are planned from.
        var upcoming: [Part] = []
        /// The fetches ahead, by key.
        var fetches: [String: HLSPrefetchPlan.Fetch] = [:]
        var step: Step = .choosing
    }

    /// What the thread is doing while it follows the playlist.
    enum Step: Hashable, Sendable {
        /// Nothing: the follower says what comes next.
        case choosing
        /// The playlist is being fetched again.
        case reloading
        /// The playlist is reloaded at this time.
        case waitingReload(at: Double)
        /// This segment's initialization section (`map`) is being fetched.
        case initializing(Part, HLSMediaPlaylist.Map)
        /// These bytes are being given to the receiver; then what comes after.
        case delivering([UInt8], then: AfterDelivery, Delivery)
        /// The segment waits for its fetch ahead to end.
        case waitingPrefetch(Part)
        /// An attempt at a segment (1 first): its transfer.
        case streaming(Part, attempt: Int, Transfer)
        /// Attempt `attempt` failed after giving `delivered` audio bytes: the next starts at `until`.
        case backingOff(Part, attempt: Int, delivered: Int, until: Double)
        /// The segment's transfer ended: its last bytes are being read.
        case finishing(Part)
    }

    /// What follows a delivery by the thread.
    enum AfterDelivery: Hashable, Sendable {
        /// `map` was given: this segment plays.
        case segment(Part, map: HLSMediaPlaylist.Map)
        /// A segment's last bytes were given: the next step.
        case next
    }

    /// Where a delivery by the thread is.
    enum Delivery: Hashable, Sendable {
        /// To be given (again) at the next tick.
        case ready
        /// Being given; `resumed`: a resume came meanwhile (a pause it answers is undone).
        case inFlight(resumed: Bool)
        /// The receiver paused it: it waits for a resume.
        case paused
    }

    /// A segment's transfer.
    enum Transfer: Hashable, Sendable {
        /// Started, not yet known to the connection (its first bytes may come, and be paused,
        /// before); `resumePending`: a resume came meanwhile, for it.
        case starting(resumePending: Bool)
        /// Known to the connection: a resume goes to it.
        case running
        /// Over, as this says.
        case over(Outcome)

        /// How it ended, once it did.
        var outcome: Outcome? {
            if case .over(let outcome) = self { outcome } else { nil }
        }
    }

    /// How a segment's transfer ended.
    enum Outcome: Hashable, Sendable {
        /// Every byte was read, `delivered` audio bytes given.
        case ended(delivered: Int)
        /// It failed; `retry`: fetching it again may help.
        case failed(AudioStreamerError, retry: Bool, delivered: Int)
    }
}
