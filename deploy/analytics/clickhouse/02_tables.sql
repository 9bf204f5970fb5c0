-- One row per receipt (per device send), and per-minute rollups by platform, type and status.
CREATE TABLE IF NOT EXISTS push.receipts
(
    messageId String,
    room String,
    type LowCardinality(String),
    userId String,
    platform LowCardinality(String),
    tokenHash String,
    status LowCardinality(String),
    reason Nullable(String),
    providerMessageId Nullable(String),
    attempts UInt32,
    sourceTopic LowCardinality(String),
    sourcePartition Int32,
    sourceOffset Int64,
    eventTime Nullable(DateTime64(3, 'UTC')),
    sentAt Nullable(DateTime64(3, 'UTC')),
    latencyMs Nullable(Float64),
    replayRunId Nullable(String),
    worker LowCardinality(String),
    -- When the receipt was written: sentAt, else when ClickHouse read it.
    receiptTime DateTime64(3, 'UTC')
)
ENGINE = MergeTree
PARTITION BY toYYYYMMDD(receiptTime)
ORDER BY (platform, type, status, receiptTime);

CREATE TABLE IF NOT EXISTS push.receipts_per_minute
(
    minute DateTime('UTC'),
    platform LowCardinality(String),
    type LowCardinality(String),
    status LowCardinality(String),
    receipts UInt64
)
ENGINE = SummingMergeTree(receipts)
ORDER BY (minute, platform, type, status);
