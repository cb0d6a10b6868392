package io.ttlstreams.readback;

import com.mongodb.ReadConcern;
import com.mongodb.ReadPreference;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Projections;
import io.ttlstreams.connect.ChangeStreamPipeline;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.rules.TtlRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.conversions.Bson;

/**
 * Reads documents back from MongoDB with the official sync driver: {@code find({_id: {$in: ids}})} projected to
 * {@code _id} and the fields the namespace's rules read (the source connector's projection, {@link
 * ChangeStreamPipeline#documentPaths}), so that the rules see what a change event would have carried.
 *
 * <p>From the primary with majority read concern, whatever the URI says: a secondary may lag, and a majority read
 * sees only durable writes yet is never older than a change event the processor has applied (the change stream
 * reports majority-committed writes only), so "absent" means the delete cannot be rolled back.
 */
public final class MongoDocumentReader implements DocumentReader {

    /** A look-up the server has not answered in this time fails, and its deletes are retried as without read-back. */
    static final long MAX_TIME_MS = 10_000;

    private final MongoClient client;
    private final TtlRules rules;
    private final Map<Namespace, Bson> projections = new ConcurrentHashMap<>();

    /**
     * @param client the client to read with; the caller closes it
     * @param rules the rules, whose fields are read
     */
    public MongoDocumentReader(MongoClient client, TtlRules rules) {
        this.client = Objects.requireNonNull(client, "client");
        this.rules = Objects.requireNonNull(rules, "rules");
    }

    @Override
    public List<BsonDocument> read(Namespace namespace, List<BsonValue> ids) {
        MongoCollection<BsonDocument> collection = client.getDatabase(namespace.database())
                .getCollection(namespace.collection(), BsonDocument.class)
                .withReadPreference(ReadPreference.primary())
                .withReadConcern(ReadConcern.MAJORITY);
        return collection
                .find(Filters.in("_id", ids))
                .projection(projections.computeIfAbsent(namespace, this::projection))
                .batchSize(ids.size())
                .maxTime(MAX_TIME_MS, TimeUnit.MILLISECONDS)
                .into(new ArrayList<>(ids.size()));
    }

    private Bson projection(Namespace namespace) {
        return Projections.include(ChangeStreamPipeline.documentPaths(rules.covering(namespace)));
    }
}
