package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import java.util.Set;

/**
 * The names of MongoDB's aggregation stages, checked as MongoDB checks a pipeline, and the stages mongo-java-server
 * knows under other names.
 *
 * <p>A stage is a document of exactly one field (else MongoDB's 40323); a name MongoDB does not know is
 * "Unrecognized pipeline stage name" (40324), whatever the context; only then does the context refuse a stage it does
 * not allow, with its own error.
 */
final class AggregationStages {

    /** The stages of MongoDB 7.0's aggregation framework. */
    private static final Set<String> MONGODB = Set.of(
            "$addFields",
            "$bucket",
            "$bucketAuto",
            "$changeStream",
            "$changeStreamSplitLargeEvent",
            "$collStats",
            "$count",
            "$currentOp",
            "$densify",
            "$documents",
            "$facet",
            "$fill",
            "$geoNear",
            "$graphLookup",
            "$group",
            "$indexStats",
            "$limit",
            "$listLocalSessions",
            "$listSampledQueries",
            "$listSearchIndexes",
            "$listSessions",
            "$lookup",
            "$match",
            "$merge",
            "$out",
            "$planCacheStats",
            "$project",
            "$redact",
            "$replaceRoot",
            "$replaceWith",
            "$sample",
            "$search",
            "$searchMeta",
            "$set",
            "$setWindowFields",
            "$shardedDataDistribution",
            "$skip",
            "$sort",
            "$sortByCount",
            "$unionWith",
            "$unset",
            "$unwind",
            "$vectorSearch");

    private AggregationStages() {}

    /**
     * The name of {@code stage}, a stage MongoDB knows.
     *
     * @throws MongoServerError 40323 when it is not a document of one field, 40324 when MongoDB knows no such stage
     */
    static String nameOf(Object stage) {
        if (!(stage instanceof Document document) || document.size() != 1) {
            throw new MongoServerError(
                    ErrorCodes.STAGE_NOT_ONE_FIELD,
                    "Location40323",
                    "A pipeline stage specification object must contain exactly one field.");
        }
        String name = document.keySet().iterator().next();
        if (!MONGODB.contains(name)) {
            throw new MongoServerError(
                    ErrorCodes.UNRECOGNIZED_STAGE, "Location40324", "Unrecognized pipeline stage name: '" + name + "'");
        }
        return name;
    }

    /**
     * {@code stage} as mongo-java-server's aggregation knows it: {@code $set} is its {@code $addFields}, {@code
     * $replaceWith: X} its {@code $replaceRoot: {newRoot: X}}; other stages as they are.
     */
    static Document forLibrary(Document stage) {
        if (stage.size() == 1 && stage.containsKey("$set")) {
            return new Document("$addFields", stage.get("$set"));
        }
        if (stage.size() == 1 && stage.containsKey("$replaceWith")) {
            return new Document("$replaceRoot", new Document("newRoot", stage.get("$replaceWith")));
        }
        return stage;
    }
}
