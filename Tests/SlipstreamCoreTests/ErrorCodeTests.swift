import SlipstreamCore
import Testing

/// Two error types of their own, with codes declared the way the libraries declare theirs.
private struct ParcelError: Error {
    typealias Code = ErrorCode<ParcelError>
    var code: Code
}

private struct LetterError: Error {
    typealias Code = ErrorCode<LetterError>
    var code: Code
}

extension ErrorCode where Domain == ParcelError {
    static var lost: Self { Self("lost") }
    static var tooHeavy: Self { Self("too heavy") }
}

extension ErrorCode where Domain == LetterError {
    static var lost: Self { Self("lost") }
}

/// The one way every error type declares its codes.
struct ErrorCodeTests {
    @Test func aCodeIsItsName() {
        #expect(ParcelError.Code.tooHeavy.name == "too heavy")
        #expect(ParcelError.Code.tooHeavy.description == "too heavy")
        #expect("\(ParcelError.Code.lost)" == "lost")
    }

    @Test func codesCompareAndHashByName() {
        #expect(ParcelError.Code.lost == .lost)
        #expect(ParcelError.Code.lost != .tooHeavy)
        #expect(Set<ParcelError.Code>([.lost, .tooHeavy, .lost]).count == 2)
        #expect(ParcelError.Code.lost.hashValue == ParcelError.Code.lost.hashValue)
    }

    @Test func callersMatchCodesByTheirShortNames() {
        let error = ParcelError(code: .tooHeavy)
        let told =
            switch error.code {
            case .lost: "lost"
            case .tooHeavy: "heavy"
            default: "other"
            }
        #expect(told == "heavy")
        #expect(error.code == .tooHeavy)
    }

    /// Codes of different error types are different types: `ParcelError.Code.lost ==
    /// LetterError.Code.lost` does not compile. Their names may be alike.
    @Test func codesOfDifferentErrorsAreDifferentTypes() {
        #expect(ParcelError.Code.self != LetterError.Code.self)
        #expect(ParcelError.Code.lost.name == LetterError.Code.lost.name)
    }

    @Test(arguments: ["network", "http status", "no space", "range not honoured", "tls", "http2 framing"])
    func namesAreLowerCaseWordsSeparatedBySingleSpaces(name: String) {
        #expect(ErrorCode<ParcelError>.isWellFormedName(name))
    }

    @Test(arguments: ["", " ", "HTTP status", "invalid URL", "noSpace", "no  space", " lost", "lost ", "timed-out", "café"])
    func otherSpellingsAreNotNames(name: String) {
        #expect(!ErrorCode<ParcelError>.isWellFormedName(name))
    }
}
