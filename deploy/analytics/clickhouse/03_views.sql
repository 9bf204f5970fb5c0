-- Receipts from the queue into push.receipts, records that did not parse into push.receipts_errors, and every
-- record (copies included) into the per-minute record count.
CREATE MATERIALIZED VIEW IF NOT EXISTS push.receipts_from_queue TO push.receipts AS
SELECT
    if(JSONHas(raw, 'receiptId'), JSONExtractString(raw, 'receiptId'),
        concat('record:', _topic, '/', toString(_partition), '/', toString(_offset))) AS receiptId,
    JSONExtractString(raw, 'messageId') AS messageId,
    JSONExtractString(raw, 'room') AS room,
    JSONExtractString(raw, 'type') AS type,
    JSONExtractString(raw, 'userId') AS userId,
    JSONExtractString(raw, 'platform') AS platform,
    JSONExtractString(raw, 'tokenHash') AS tokenHash,
    JSONExtractString(raw, 'status') AS status,
    JSONExtractBool(raw, 'suspect') = 1 AS suspect,
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
    coalesce(sentAt, toTimeZone(_timestamp_ms, 'UTC'), toDateTime64(0, 3, 'UTC')) AS receiptTime,
    bitNot(toUInt64(_offset)) AS copyRank
FROM push.receipts_queue
WHERE length(_error) = 0
    AND JSONHas(raw, 'status') AND JSONHas(raw, 'platform') AND JSONHas(raw, 'type') AND JSONHas(raw, 'messageId');

CREATE MATERIALIZED VIEW IF NOT EXISTS push.receipts_errors_from_queue TO push.receipts_errors AS
SELECT _topic AS topic, _partition AS partition, _offset AS offset, _timestamp_ms AS recordTime, _error AS error,
    _raw_message AS raw
FROM push.receipts_queue
WHERE length(_error) > 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS push.receipt_records_from_receipts TO push.receipt_records_per_minute AS
SELECT toStartOfMinute(receiptTime) AS minute, count() AS records
FROM push.receipts
GROUP BY minute;
