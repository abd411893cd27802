-- The cluster-wide span table: a Distributed table over every shard's
-- {local_table} (spans_table.sql), in cluster {cluster} of the servers'
-- remote_servers. Fleet queries read it; each optraced inserts into the
-- {local_table} of the server it is configured with. Create it, like the
-- local table, on every server of the cluster (ON CLUSTER would need
-- ZooKeeper). Rows inserted through it (by other tools) go to a shard by
-- node, so that one node's spans, and their duplicates, share a shard.
CREATE TABLE IF NOT EXISTS {database}.{table} AS {database}.{local_table}
ENGINE = Distributed({cluster}, {database}, {local_table}, cityHash64(node));
