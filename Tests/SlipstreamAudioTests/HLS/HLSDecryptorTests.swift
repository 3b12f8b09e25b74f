import Testing

@testable import SlipstreamAudio

/// AES-128-CBC with PKCS7 padding against bytes `openssl enc -aes-128-cbc` wrote (key and IV
/// of NIST SP 800-38A's CBC example): whole, in pieces of any size, and cut short.
@Suite struct HLSDecryptorTests {
    static let key = bytes("2b7e151628aed2a6abf7158809cf4f3c")
    static let iv = bytes("000102030405060708090a0b0c0d0e0f")
    static let plain = Array("Slipstream HLS init section, 41 bytes lon".utf8)
    static let encrypted = bytes(
        "7acf71b0c3d9305f385564a0fb60d278ded7f55fa668161e9d57dd18e3ebe7a6f4cbea353a98589c1683165a182368ae")

    static func bytes(_ hex: String) -> [UInt8] {
        var hex = Substring(hex)
        var bytes: [UInt8] = []
        while !hex.isEmpty {
            bytes.append(UInt8(hex.prefix(2), radix: 16)!)
            hex = hex.dropFirst(2)
        }
        return bytes
    }

    @Test func aWholeResourceDecryptsToItsPlainBytes() throws {
        #expect(Self.plain.count == 41)
        let decryptor = try HLSDecryptor(key: Self.key, iv: Self.iv)
        #expect(try decryptor.decryptAll(Self.encrypted) == Self.plain)
    }

    @Test(arguments: [1, 5, 16, 17, 31])
    func piecesOfAnySizeGiveTheSameBytes(_ size: Int) throws {
        let decryptor = try HLSDecryptor(key: Self.key, iv: Self.iv)
        var plain: [UInt8] = []
        var start = 0
        while start < Self.encrypted.count {
            let piece = Array(Self.encrypted[start..<min(start + size, Self.encrypted.count)])
            piece.withUnsafeBytes { decryptor.decrypt($0, into: &plain) }
            start += size
        }
        plain += try decryptor.finish()
        #expect(plain == Self.plain)
    }

    @Test func aResourceCutShortOrAWrongKeyIsAClearError() throws {
        let cut = try HLSDecryptor(key: Self.key, iv: Self.iv)
        #expect(throws: HLSDecryptor.Failure.self) { try cut.decryptAll(Array(Self.encrypted.prefix(40))) }
        var wrongKey = Self.key
        wrongKey[0] ^= 1
        let wrong = try HLSDecryptor(key: wrongKey, iv: Self.iv)
        // A wrong key gives bad padding (but for a 1-in-256 chance, not with this key).
        #expect(throws: HLSDecryptor.Failure.self) { try wrong.decryptAll(Self.encrypted) }
        #expect(throws: HLSDecryptor.Failure.self) { try HLSDecryptor(key: Array(Self.key.prefix(8)), iv: Self.iv) }
    }
}
