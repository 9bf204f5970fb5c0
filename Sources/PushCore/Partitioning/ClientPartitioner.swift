/// The partition of a client's records in the co-partitioned topics (`push.devices`, `push.clients`, `push.fanout`):
/// Kafka's Java default partitioner applied to the client part of the key, `appID/clientId` percent-encoded as the
/// registry writes it, so that a client's devices, its settings and the fan-out records addressed to it share one
/// partition number.
///
/// The hash is `Utils.murmur2` of Kafka's Java client (MurmurHash2 with seed `0x9747b28c`, the bytes read as
/// little-endian words), made positive by clearing the sign bit (`Utils.toPositive`), modulo the partition count:
/// librdkafka's `murmur2_random` partitioner computes the same for a non-empty key, so a producer in Java or on
/// librdkafka can place records where this worker looks for them.
public enum ClientPartitioner {
    /// The partition of the client key `bytes` among `partitions` (at least 1; fewer counts as 1).
    public static func partition(ofClientKey bytes: some Collection<UInt8>, partitions: Int) -> Int32 {
        let positive = Int(murmur2(bytes) & 0x7fff_ffff)
        return Int32(truncatingIfNeeded: positive % max(1, partitions))
    }

    /// The client key's bytes, `appID/clientId` percent-encoded: the key of `push.clients`, the client part of the
    /// key of `push.devices` and the key of `push.fanout`.
    public static func clientKey(appID: String, clientID: String) -> [UInt8] {
        Array(ClientKey(appID: appID, clientID: clientID).description.utf8)
    }

    /// The partition of `client`'s records among `partitions`.
    public static func partition(of client: ClientKey, partitions: Int) -> Int32 {
        partition(ofClientKey: client.description.utf8, partitions: partitions)
    }

    /// Kafka's `Utils.murmur2` of `bytes`, as an unsigned word (Java's `int` read as its 32 bits).
    public static func murmur2(_ bytes: some Collection<UInt8>) -> UInt32 {
        let seed: UInt32 = 0x9747_b28c
        let m: UInt32 = 0x5bd1_e995
        var hash = seed ^ UInt32(truncatingIfNeeded: bytes.count)
        var word: UInt32 = 0
        var filled = 0
        for byte in bytes {
            word |= UInt32(byte) << (8 * filled)
            filled += 1
            guard filled == 4 else { continue }
            var k = word &* m
            k ^= k >> 24
            k = k &* m
            hash = (hash &* m) ^ k
            word = 0
            filled = 0
        }
        if filled > 0 {
            hash ^= word
            hash = hash &* m
        }
        hash ^= hash >> 13
        hash = hash &* m
        hash ^= hash >> 15
        return hash
    }
}
