/**
 * The source connectors' record key: a Kafka Connect {@link io.ttlstreams.sourcekey.DocumentIdKey transformation}
 * that keys every change event of a document by its {@code _id}, so that all of them land on one partition whatever
 * its sharded collection's {@code documentKey} holds. Shipped in the sink guard's Connect plugin, which every worker
 * running ttl-streams' connectors has installed.
 */
package io.ttlstreams.sourcekey;
