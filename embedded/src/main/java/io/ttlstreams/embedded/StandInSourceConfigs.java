package io.ttlstreams.embedded;

import io.ttlstreams.config.SourceProfile;
import io.ttlstreams.connect.ChangeStreamPipeline;
import io.ttlstreams.contract.CanonicalJson;
import io.ttlstreams.contract.Namespace;
import java.util.LinkedHashMap;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonString;

/**
 * MongoDB source connector configurations that work against the mongo-java-server stand-in, one connector per
 * watched collection, each publishing to topic {@code "<db>.<coll>"}.
 *
 * <p><b>For the stand-in only.</b> Two things here exist purely to work around mongo-java-server and must not be
 * copied into configurations for a real MongoDB:
 * <ul>
 *   <li>one connector per collection, because the stand-in only supports collection-level change streams (a
 *       database- or deployment-level watch returns nothing or fails);</li>
 *   <li>a {@code pipeline} that adds the {@code ns} field the stand-in
 *       leaves out (without it the connector publishes nothing: "No topic set"), rebuilds {@code documentKey} as
 *       {@code {"_id": ...}} (the stand-in puts the update specification or the whole replacement there) and
 *       nulls a looked-up {@code fullDocument} that is not a document. On a real server all of that is already
 *       right, and {@code documentKey} may carry shard-key fields the pipeline would drop.</li>
 * </ul>
 * The rest (JSON output in canonical extended JSON, update lookups, full change events) is what ttl-streams
 * expects from any source connector.
 */
public final class StandInSourceConfigs {

    /** The connector class both the stand-in and real deployments use. */
    public static final String CONNECTOR_CLASS = "com.mongodb.kafka.connect.MongoSourceConnector";

    private StandInSourceConfigs() {}

    /**
     * @param namespace the watched collection
     * @return the connector name used for that namespace, {@code "mongo-source-<db>.<coll>"}
     */
    public static String connectorName(Namespace namespace) {
        return "mongo-source-" + namespace;
    }

    /**
     * @param namespace the watched collection
     * @return the topic the connector publishes that namespace's change events to: {@code "<db>.<coll>"}
     */
    public static String topic(Namespace namespace) {
        return namespace.toString();
    }

    /**
     * @param namespace        the collection to watch
     * @param connectionString the stand-in's connection string
     * @return the source connector configuration for that one collection
     */
    public static Map<String, String> forNamespace(Namespace namespace, String connectionString) {
        return forNamespace(namespace, connectionString, SourceProfile.MONGODB);
    }

    /**
     * @param namespace        the collection to watch
     * @param connectionString the stand-in's connection string
     * @param profile          the service the stand-in plays: on {@link SourceProfile#COSMOSDB} the pipeline starts
     *                         with the stages Cosmos DB requires ({@link ChangeStreamPipeline#cosmosStages}), then
     *                         the stand-in's repairs
     * @return the source connector configuration for that one collection
     */
    public static Map<String, String> forNamespace(
            Namespace namespace, String connectionString, SourceProfile profile) {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("connector.class", CONNECTOR_CLASS);
        config.put("tasks.max", "1");
        config.put("connection.uri", connectionString);
        config.put("database", namespace.database());
        config.put("collection", namespace.collection());
        config.put(
                "pipeline",
                profile == SourceProfile.COSMOSDB
                        ? "[" + String.join(", ", ChangeStreamPipeline.cosmosStages()) + ", "
                                + pipeline(namespace).substring(1)
                        : pipeline(namespace));
        config.put("change.stream.full.document", "updateLookup");
        config.put("publish.full.document.only", "false");
        // The record key is the document key, as in production (ConnectorConfigs): the default partitioner then
        // puts a document's events on one partition, and the processor finds the owner of a document from its key.
        config.put("change.stream.document.key.as.key", "true");
        config.put("output.format.key", "json");
        config.put("output.format.value", "json");
        config.put("output.json.formatter", "com.mongodb.kafka.connect.source.json.formatter.ExtendedJson");
        // First start: from now on. Later starts resume from the stored offset (resume token).
        config.put("startup.mode", "latest");
        // As tolerant as production (ConnectorConfigs): an event the worker cannot produce, such as one whose
        // 400 kB _id appears three times in it, is skipped and logged instead of failing the task; a lost resume
        // token still fails it. The stand-in has no $bsonSize, so the pipeline cannot drop such events earlier.
        config.put("mongo.errors.tolerance", "none");
        config.put("errors.tolerance", "all");
        config.put("errors.log.enable", "true");
        return config;
    }

    /**
     * The change-stream pipeline that makes the stand-in's events look like real MongoDB's.
     *
     * <ul>
     *   <li>{@code ns} is added (the stand-in leaves it out).</li>
     *   <li>{@code documentKey} becomes {@code {"_id": ...}}: deletes keep the stand-in's (right for deletes);
     *       other events take {@code fullDocument._id}, else {@code documentKey._id} (a replace, whose
     *       {@code documentKey} is the whole replacement on the stand-in).</li>
     *   <li>{@code fullDocument} becomes null when it has no {@code _id}. The stand-in evaluates updateLookup when
     *       the event is read, and when the document is gone by then it returns the update's {@code $set} fields
     *       (or {@code {}} for a replace) instead of null, as real MongoDB would.</li>
     *   <li>An update whose {@code _id} cannot be recovered at all (the document was deleted before the event was
     *       read, and the stand-in's {@code documentKey} then holds the update specification) is dropped: it
     *       would be unusable without a key, and the delete event that follows carries the final state.</li>
     * </ul>
     * New values go through temporary fields because the stand-in's {@code $addFields} merges into an existing
     * sub-document instead of replacing it, so the originals are first removed and then set afresh.
     *
     * @param namespace the watched collection
     * @return the pipeline as a JSON array
     */
    static String pipeline(Namespace namespace) {
        return "[{\"$addFields\": {"
                + "\"_dk\": {\"$cond\": [{\"$eq\": [\"$operationType\", \"delete\"]}, \"$documentKey\","
                + " {\"_id\": {\"$ifNull\": [\"$fullDocument._id\", \"$documentKey._id\"]}}]},"
                + " \"_fd\": {\"$cond\": [{\"$eq\": [{\"$ifNull\": [\"$fullDocument._id\", null]}, null]}, null,"
                + " \"$fullDocument\"]}}},"
                + " {\"$project\": {\"documentKey\": 0, \"fullDocument\": 0}},"
                + " {\"$addFields\": {\"documentKey\": \"$_dk\", \"fullDocument\": \"$_fd\","
                + " \"ns\": "
                + CanonicalJson.of(new BsonDocument("db", new BsonString(namespace.database()))
                        .append("coll", new BsonString(namespace.collection())))
                + "}},"
                + " {\"$project\": {\"_dk\": 0, \"_fd\": 0}},"
                + " {\"$match\": {\"documentKey._id\": {\"$ne\": null}}}]";
    }
}
