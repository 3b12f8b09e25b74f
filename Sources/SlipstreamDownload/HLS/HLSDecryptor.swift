import CCrypto

/// Decrypts one HLS segment encrypted with `METHOD=AES-128` (RFC 8216, 5.2): AES-128-CBC of
/// the whole segment with PKCS7 padding, through libcrypto, in pieces of any size. The last
/// block is held until `finish()`, which checks and strips the padding. Shared by HLS
/// downloads (`HLSJoiner`) and HLS playback.
package final class HLSDecryptor {
    /// Why a segment cannot be decrypted.
    package struct Failure: Error, Hashable, Sendable, CustomStringConvertible {
        package var message: String
        package var description: String { message }
    }

    private let context: OpaquePointer

    /// A decryptor with the 16-byte `key` and `iv`.
    package init(key: [UInt8], iv: [UInt8]) throws(Failure) {
        guard key.count == 16, iv.count == 16 else {
            throw Failure(message: "an AES-128 key and IV are 16 bytes (the key has \(key.count))")
        }
        guard slipstream_crypto_loaded() != 0 else { throw Failure(message: String(cString: slipstream_crypto_missing)) }
        guard let context = slipstream_EVP_CIPHER_CTX_new() else { throw Failure(message: "libcrypto could not make a cipher context") }
        self.context = context
        guard slipstream_EVP_DecryptInit_ex(context, slipstream_EVP_aes_128_cbc(), nil, key, iv) == 1 else {
            slipstream_EVP_CIPHER_CTX_free(context)
            throw Failure(message: "libcrypto refused the AES-128 key")
        }
    }

    deinit {
        slipstream_EVP_CIPHER_CTX_free(context)
    }

    /// Decrypts `input`, appending the plain bytes it gives to `plain`.
    package func decrypt(_ input: UnsafeRawBufferPointer, into plain: inout [UInt8]) {
        var offset = 0
        // EVP lengths are Int32: large inputs go in pieces.
        while offset < input.count {
            let count = min(input.count - offset, 1 << 20)
            let start = plain.count
            plain.append(contentsOf: repeatElement(0, count: count + 16))
            var written: Int32 = 0
            let ok = plain.withUnsafeMutableBytes { out in
                slipstream_EVP_DecryptUpdate(
                    context, out.baseAddress!.advanced(by: start).assumingMemoryBound(to: UInt8.self), &written,
                    input.baseAddress!.advanced(by: offset).assumingMemoryBound(to: UInt8.self), Int32(count))
            }
            precondition(ok == 1, "EVP_DecryptUpdate failed on a CBC decryption")
            plain.removeLast(count + 16 - Int(written))
            offset += count
        }
    }

    /// A whole encrypted resource (an initialization section) decrypted, its padding checked
    /// and removed: `decrypt` and `finish` in one.
    package func decryptAll(_ input: [UInt8]) throws(Failure) -> [UInt8] {
        var plain: [UInt8] = []
        plain.reserveCapacity(input.count + 16)
        input.withUnsafeBytes { decrypt($0, into: &plain) }
        plain += try finish()
        return plain
    }

    /// The last plain bytes, the padding checked and removed.
    package func finish() throws(Failure) -> [UInt8] {
        var last = [UInt8](repeating: 0, count: 32)
        var written: Int32 = 0
        guard slipstream_EVP_DecryptFinal_ex(context, &last, &written) == 1 else {
            throw Failure(message: "the AES-128 segment does not decrypt (wrong key or IV, or cut short)")
        }
        return Array(last.prefix(Int(written)))
    }
}
