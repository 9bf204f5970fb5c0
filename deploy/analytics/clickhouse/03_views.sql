-- Receipts from the queue into push.receipts, and push.receipts into the per-minute rollup.
CREATE MATERIALIZED VIEW IF NOT EXISTS push.receipts_from_queue TO push.receipts AS
SELECT
    JSONExtractString(raw, 'messageId') AS messageId,
    JSONExtractString(raw, 'room') AS room,
    JSONExtractString(raw, 'type') AS type,
    JSONExtractString(raw, 'userId') AS userId,
    JSONExtractString(raw, 'platform') AS platform,
    JSONExtractString(raw, 'tokenHash') AS tokenHash,
    JSONExtractString(raw, 'status') AS status,
    JSONExtract(raw, 'reason', 'Nullable(String)') AS reason,
    JSONExtract(raw, 'providerMessageId', 'Nullable(String)') AS providerMessageId,
    toUInt32(greatest(JSONExtractInt(raw, 'attempts'), 0)) AS attempts,
    JSONExtractString(raw, 'source', 'topic') AS sourceTopic,
    toInt32(JSONExtractInt(raw, 'source', 'partition')) AS sourcePartition,
    JSONExtractInt(raw, 'source', 'offset') AS sourceOffset,
    parseDateTime64BestEffortOrNull(JSONExtractString(raw, 'eventTime'), 3, 'UTC') AS eventTime,
    parseDateTime64BestEffortOrNull(JSONExtractString(raw, 'sentAt'), 3, 'UTC') AS sentAt,
    JSONExtract(raw, 'latencyMs', 'Nullable(Float64)') AS latencyMs,
    JSONExtract(raw, 'replayRunId', 'Nullable(String)') AS replayRunId,
    JSONExtractString(raw, 'worker') AS worker,
    coalesce(sentAt, now64(3, 'UTC')) AS receiptTime
FROM push.receipts_queue
WHERE JSONHas(raw, 'status') AND JSONHas(raw, 'platform') AND JSONHas(raw, 'type') AND JSONHas(raw, 'messageId');

CREATE MATERIALIZED VIEW IF NOT EXISTS push.receipts_per_minute_from_receipts TO push.receipts_per_minute AS
SELECT toStartOfMinute(receiptTime) AS minute, platform, type, status, count() AS receipts
FROM push.receipts
GROUP BY minute, platform, type, status;
