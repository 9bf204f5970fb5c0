-- The receipts topic as a ClickHouse Kafka-engine table: one row per record, the receipt's JSON as text.
-- JSONAsString keeps every receipt version readable (older invalid_token receipts carried a raw `token`;
-- the views below never extract it). Set the brokers, the topic and a consumer group of ClickHouse's own
-- (never the worker's group).
CREATE TABLE IF NOT EXISTS push.receipts_queue
(
    raw String
)
ENGINE = Kafka
SETTINGS
    kafka_broker_list = 'kafka:9092',
    kafka_topic_list = 'push.receipts',
    kafka_group_name = 'push-receipts-clickhouse',
    kafka_format = 'JSONAsString',
    kafka_num_consumers = 1;
