-- The receipts topic as a ClickHouse Kafka-engine table: one row per record, the receipt's JSON as text.
-- JSONAsString keeps every receipt version readable (older invalid_token receipts carried a raw `token`;
-- the views below never extract it). Set the brokers, the topic and a consumer group of ClickHouse's own
-- (never the worker's group). SASL and TLS: kafka.xml beside this file (server configuration, secrets from
-- the environment). kafka_handle_error_mode = 'stream' hands a record ClickHouse cannot parse to the views
-- with `_error` set instead of stopping the table: 03_views.sql files it in push.receipts_errors.
CREATE TABLE IF NOT EXISTS push.receipts_queue
(
    raw String
)
ENGINE = Kafka
SETTINGS
    kafka_broker_list = 'kafka:9093',
    kafka_topic_list = 'push.receipts',
    kafka_group_name = 'push-receipts-clickhouse',
    kafka_format = 'JSONAsString',
    kafka_num_consumers = 1,
    kafka_handle_error_mode = 'stream';
