package io.ttlstreams.sourcekey;

import io.ttlstreams.contract.BoundedJson;
import io.ttlstreams.contract.CanonicalJson;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.transforms.Transformation;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Kafka Connect transformation for the MongoDB source connectors that keys each change event by its document's
 * {@code _id} alone: a record key {@code {"tenant": "t1", "_id": 7}} (a sharded collection's {@code documentKey},
 * which {@code change.stream.document.key.as.key} makes the key) becomes {@code {"_id": 7}}, written as canonical
 * extended JSON ({@link CanonicalJson}).
 *
 * <p>Why: Kafka's default partitioner picks a record's partition by its key's bytes, and the processor keeps a
 * document's schedule entry in the task of the partition its events arrive on. A sharded collection's {@code
 * documentKey} changes shape over the collection's life ({@code {_id}} before {@code shardCollection}, {@code
 * {tenant, _id}} after, {@code {tenant, region, _id}} after {@code refineCollectionShardKey}) and value (a shard key
 * value change), and keyed by it the events of one document would reach several tasks, each with an entry of its own.
 * Keyed by {@code _id}, the processor's identity of a document within its namespace's topic, all its events reach one
 * partition whatever its shard key does; and the key is byte for byte the one an unsharded collection's events had
 * already (the connector writes {@code {"_id": ...}} in the same form) and the one {@code ttl-streams resync} gives
 * its events, so neither moves to another partition. The value, and the {@code documentKey} in it that the delete
 * filter takes, are left as they are.
 *
 * <p>A key that holds nothing but {@code _id}, holds no {@code _id} (a heartbeat's) or is not a JSON document passes
 * unchanged; the key is read within {@link BoundedJson}'s nesting limit (the source pipeline bounds its size). Needs
 * {@code output.format.key=json} with a {@code StringConverter} for keys, as the rendered source connectors have.
 *
 * @param <R> the record type; on a source connector, {@code SourceRecord}
 */
public final class DocumentIdKey<R extends ConnectRecord<R>> implements Transformation<R> {

    private static final String ID = "_id";

    @Override
    public void configure(Map<String, ?> props) {
        // Nothing to configure.
    }

    /** @return {@code record} keyed by {@code {"_id": ...}} when its key held more fields, else {@code record} */
    @Override
    public R apply(R record) {
        if (!(record.key() instanceof String key)) {
            return record;
        }
        BsonDocument document;
        try {
            document = BoundedJson.parse(key);
        } catch (RuntimeException notADocument) {
            return record;
        }
        BsonValue id = document.get(ID);
        if (id == null || document.size() == 1) {
            return record;
        }
        return record.newRecord(
                record.topic(),
                record.kafkaPartition(),
                record.keySchema(),
                CanonicalJson.of(new BsonDocument(ID, id)),
                record.valueSchema(),
                record.value(),
                record.timestamp(),
                record.headers());
    }

    @Override
    public ConfigDef config() {
        return new ConfigDef();
    }

    @Override
    public void close() {
        // Nothing to release.
    }
}
