/// Decides when an event loop waits by itself instead of in libcurl's poll: libcurl 7.88's `curl_multi_poll`
/// returns at once, turn after turn, while a transfer waits for something no socket event announces (stream room
/// under a server's `SETTINGS_MAX_CONCURRENT_STREAMS=0`, flow-control window for an upload the server never opens):
/// the socket is writable, libcurl asks to be told so, and then has nothing it may write.
///
/// A turn *did nothing* when it took nothing from the inbox, finished no transfer and received no response byte.
/// After `spinsBeforePacing` such turns in a row whose wait returned within `quickWait`, the next `pacedTurns`
/// turns wait `pause` on the loop's own wake-up (a submission or a stop still ends the wait at once), then libcurl's
/// poll is tried again. A turn that does something ends the pacing.
struct IdleTurnPacer {
    /// Idle turns with quick waits that make a spin.
    var spinsBeforePacing = 3
    /// A wait shorter than this returned without waiting.
    var quickWait: Duration = .milliseconds(1)
    /// How long a paced turn waits.
    var pause: Duration = .milliseconds(10)
    /// Paced turns before libcurl's poll is tried again.
    var pacedTurns = 10

    private var quickIdleTurns = 0
    private var pacedTurnsLeft = 0

    /// True when the next turn waits `pause` by itself rather than in libcurl's poll.
    var paces: Bool { pacedTurnsLeft > 0 }

    /// Notes how a turn went: whether it did something, and how long its wait lasted.
    mutating func turnEnded(didSomething: Bool, waited: Duration) {
        if didSomething {
            quickIdleTurns = 0
            pacedTurnsLeft = 0
        } else if pacedTurnsLeft > 0 {
            pacedTurnsLeft -= 1
        } else if waited < quickWait {
            quickIdleTurns += 1
            if quickIdleTurns >= spinsBeforePacing {
                quickIdleTurns = 0
                pacedTurnsLeft = pacedTurns
            }
        } else {
            quickIdleTurns = 0
        }
    }
}
