-- optrace's span table in ClickHouse: one row per span, written by the
-- optraced forwarder (docs/fleet.md). optraced creates it by itself; this
-- file is what it runs, for operators who prefer to create it themselves
-- (create-tables.sh fills the placeholders and runs it).
--
-- Placeholders: {database} and {local_table}: the table itself for one
-- server ({table}, default "spans"), or the per-shard table of a cluster
-- ({table}_local, read through the Distributed table of
-- spans_distributed.sql).
--
-- ClickHouse 18.16 needs allow_experimental_low_cardinality_type=1 when the
-- table is created (not later, for inserts or queries).
CREATE DATABASE IF NOT EXISTS {database};

-- Duplicates: every span has a unique key, (node, store_id, page_id,
-- page_index): which optraced, which of its databases, which of its span
-- pages, where in the page. A batch the forwarder sends again after an
-- unknown outcome holds the same rows with the same keys, so the
-- ReplacingMergeTree keeps one of each when it merges; the forwarder also
-- asks ClickHouse which pages of such a batch it already holds and sends
-- only the others, so that duplicates do not even reach a merge.
--
-- Order: by name first (most fleet queries ask about some ops), then node
-- and time. Partitions: one per day of span start, so that a time range
-- reads only its days and old days can be dropped whole
-- (ALTER TABLE ... DROP PARTITION 20250101).
CREATE TABLE IF NOT EXISTS {database}.{local_table}
(
    node LowCardinality(String),
    store_id UInt64,
    page_id UInt64,
    page_index UInt32,
    session_id UInt64,
    label String,
    pid UInt32,
    uid UInt32,
    executable String,
    session_start_unix_ns Int64,
    op_id UInt64,
    parent_op_id UInt64,
    name LowCardinality(String),
    tag LowCardinality(String),
    source_location LowCardinality(String),
    target Enum8('none' = 0, 'cpu' = 1, 'gpu' = 2, 'other' = 3),
    device UInt16,
    stream UInt32,
    start_unix_ns Int64,
    duration_ns UInt64,
    device_duration_ns UInt64,
    launch_thread UInt32,
    complete_thread UInt32,
    status Enum8('ok' = 1, 'incomplete' = 2, 'complete_without_launch' = 3, 'duplicate' = 4),
    -- Its duration less its children's time on its thread. Tables created
    -- before it get it from optraced (ALTER TABLE ... ADD COLUMN, this
    -- definition): their rows read their duration, as no children were
    -- subtracted then.
    self_ns UInt64 DEFAULT duration_ns
)
ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMMDD(toDateTime(intDiv(start_unix_ns, 1000000000)))
ORDER BY (name, node, start_unix_ns, store_id, page_id, page_index);
