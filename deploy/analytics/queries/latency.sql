-- Send latency quantiles in ms (receipts stats: latencyMs). quantileExact picks the value at index
-- floor(level * n), as the worker's sketch does; the sketch is within 1 % of it.
SELECT
    count(latencyMs) AS sends,
    quantileExact(0.5)(latencyMs) AS p50,
    quantileExact(0.95)(latencyMs) AS p95,
    quantileExact(0.99)(latencyMs) AS p99
FROM push.receipts_window(from = {from:DateTime64(3, 'UTC')}, to = {to:DateTime64(3, 'UTC')}, run = {run:String})
WHERE latencyMs IS NOT NULL;
