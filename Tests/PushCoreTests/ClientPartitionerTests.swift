import PushCore
import Testing

@Suite struct ClientPartitionerTests {
    /// librdkafka's `unittest_murmur2` (src/rdmurmur2.c), whose expected values are Java's `Utils.murmur2`; the
    /// suffixes of two keys there test unaligned reads, here they give every length modulo 4.
    @Test(
        arguments: [
            ("kafka", 0xd067_cf64),
            ("giberish123456789", 0x8f55_2b0c),
            ("1234", 0x9fc9_7b14),
            ("234", 0xe7c0_09ca),
            ("34", 0x8739_30da),
            ("4", 0x5a4b_5ca1),
            ("PreAmbleWillBeRemoved,ThePrePartThatIs", 0x7842_4f1c),
            ("reAmbleWillBeRemoved,ThePrePartThatIs", 0x4a62_b377),
            ("eAmbleWillBeRemoved,ThePrePartThatIs", 0xe0e4_e09e),
            ("AmbleWillBeRemoved,ThePrePartThatIs", 0x62b8_b43f),
            ("", 0x106e_08d9),
        ] as [(String, UInt32)])
    func hashesAsLibrdkafkasMurmur2UnitTest(key: String, expected: UInt32) {
        #expect(ClientPartitioner.murmur2(Array(key.utf8)) == expected)
    }

    /// Kafka's `UtilsTest.testMurmur2` (clients/src/test/java/org/apache/kafka/common/utils/UtilsTest.java), Java's
    /// signed `int`.
    @Test(
        arguments: [
            ("21", -973_932_308),
            ("foobar", -790_332_482),
            ("a-little-bit-long-string", -985_981_536),
            ("a-little-bit-longer-string", -1_486_304_829),
            ("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58_897_971),
            ("abc", 479_470_107),
        ] as [(String, Int32)])
    func hashesAsKafkasJavaUtilsMurmur2(key: String, expected: Int32) {
        #expect(Int32(bitPattern: ClientPartitioner.murmur2(Array(key.utf8))) == expected)
    }

    @Test func thePartitionIsThePositiveHashModuloTheCount() {
        // "kafka": 0xd067cf64 with the sign bit cleared is 1348980580 (librdkafka's older unit test value).
        #expect(ClientPartitioner.partition(ofClientKey: Array("kafka".utf8), partitions: 1_000) == 580)
        #expect(ClientPartitioner.partition(ofClientKey: Array("kafka".utf8), partitions: 7) == 1_348_980_580 % 7)
        // "21": -973932308 & 0x7fffffff = 1173551340.
        #expect(ClientPartitioner.partition(ofClientKey: Array("21".utf8), partitions: 64) == 1_173_551_340 % 64)
    }

    @Test func aCountBelowOneCountsAsOne() {
        #expect(ClientPartitioner.partition(ofClientKey: Array("kafka".utf8), partitions: 0) == 0)
        #expect(ClientPartitioner.partition(ofClientKey: Array("kafka".utf8), partitions: -3) == 0)
    }

    @Test func theClientKeyIsTheSettingsKeyAndTheDevicesKeysPrefix() {
        let bytes = ClientPartitioner.clientKey(appID: "my/app", clientID: "김")
        #expect(String(decoding: bytes, as: UTF8.self) == "my%2Fapp/%EA%B9%80")
        let device = DeviceKey(appID: "my/app", clientID: "김", type: .fcm, deviceID: "d/1")
        #expect(Array(device.description.utf8).starts(with: bytes + [UInt8(ascii: "/")]))
        #expect(
            ClientPartitioner.partition(of: device.client, partitions: 6)
                == ClientPartitioner.partition(ofClientKey: bytes, partitions: 6))
    }

    @Test func everyPartitionIsInRange() {
        for index in 0..<2_000 {
            let partition = ClientPartitioner.partition(
                ofClientKey: ClientPartitioner.clientKey(appID: "app", clientID: "c\(index)"), partitions: 6)
            #expect((0..<6).contains(partition))
        }
    }
}
