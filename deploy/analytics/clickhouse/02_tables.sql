-- One row per receipt id: ReplacingMergeTree keeps one row of every receiptId, so a copy that at-least-once
-- delivery wrote again (a crash or a rebalance repeated a send) counts once. Merges run in the background: the
-- queries read with FINAL, which is exact before any merge. Of the copies it keeps the first written (the
-- lowest Kafka offset: every copy has the same key, the message id, so the same partition), as
-- `receipts stats` does. Receipts without receiptId (older ones) get one made of their Kafka position, so each
-- record counts, as they always did. No time partitioning: FINAL merges only within a partition, and copies are
-- written at different times.
--
-- userId and room are personal data: a column TTL empties them 30 days after the receipt (change the interval
-- to your retention rule); every other column stays, so every count and rate below stays answerable.
CREATE TABLE IF NOT EXISTS push.receipts
(
    receiptId String,
    messageId String,
    room String TTL receiptTime + INTERVAL 30 DAY,
    type LowCardinality(String),
    userId String TTL receiptTime + INTERVAL 30 DAY,
    platform LowCardinality(String),
    tokenHash String,
    status LowCardinality(String),
    -- An invalid_token answer the worker did not act on (its misconfiguration guard had tripped): true.
    suspect Bool DEFAULT false,
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
    -- When the receipt was written: sentAt, else the Kafka record's timestamp (never when ClickHouse read it).
    receiptTime DateTime64(3, 'UTC'),
    -- The first copy wins: larger for a lower offset of the receipts topic.
    copyRank UInt64,
    INDEX receipt_time receiptTime TYPE minmax GRANULARITY 4
)
ENGINE = ReplacingMergeTree(copyRank)
ORDER BY receiptId;

-- A table created before receipts carried `suspect` gets the column (false for the rows it holds); recreate the
-- view push.receipts_from_queue (03_views.sql) after it, so that new receipts fill it.
ALTER TABLE push.receipts ADD COLUMN IF NOT EXISTS suspect Bool DEFAULT false AFTER status;

-- Records of the receipts topic ClickHouse could not parse (kafka_handle_error_mode = 'stream'), for a look.
CREATE TABLE IF NOT EXISTS push.receipts_errors
(
    topic LowCardinality(String),
    partition Int64,
    offset Int64,
    recordTime Nullable(DateTime64(3, 'UTC')),
    error String,
    raw String
)
ENGINE = MergeTree
ORDER BY (topic, partition, offset)
TTL toDateTime(coalesce(recordTime, toDateTime64(0, 3, 'UTC'))) + INTERVAL 30 DAY;

-- Every receipt record read, copies included, per minute of its receipt time: what copies.sql compares the
-- distinct count with. It holds no personal data.
CREATE TABLE IF NOT EXISTS push.receipt_records_per_minute
(
    minute DateTime('UTC'),
    records UInt64
)
ENGINE = SummingMergeTree(records)
ORDER BY minute;
