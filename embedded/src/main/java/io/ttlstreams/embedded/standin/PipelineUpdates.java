package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.backend.aggregation.Aggregation;
import de.bwaldvogel.mongo.bson.BsonRegularExpression;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.bson.ObjectId;
import de.bwaldvogel.mongo.exception.MongoServerError;
import de.bwaldvogel.mongo.oplog.NoopOplog;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Updates with an aggregation pipeline (MongoDB 4.2 and later), which mongo-java-server does not run: the pipeline's
 * stages are checked as MongoDB checks them, then run on each matched document by mongo-java-server's aggregation.
 *
 * <ul>
 *   <li>Only {@code $addFields}/{@code $set}, {@code $project}/{@code $unset} and {@code $replaceRoot}/{@code
 *       $replaceWith} may appear (MongoDB's InvalidOptions, 72, for any other known stage).</li>
 *   <li>The {@code _id} stays: a result without one keeps the document's, a different one fails with ImmutableField
 *       (66).</li>
 *   <li>An upsert applies the pipeline to the document the filter's equality conditions describe.</li>
 * </ul>
 * The variables ({@code $$NOW}, {@code let}) are substituted before, by {@link CommandVariables}.
 */
final class PipelineUpdates {

    private static final Set<String> ALLOWED =
            Set.of("$addFields", "$set", "$project", "$unset", "$replaceRoot", "$replaceWith");

    private PipelineUpdates() {}

    /** True for an update specification that is a pipeline (an array of stages). */
    static boolean isPipeline(Object update) {
        return update instanceof List<?>;
    }

    /**
     * The pipeline's stages, checked.
     *
     * @throws MongoServerError as MongoDB refuses the pipeline of an update
     */
    static List<Document> stages(Object pipeline) {
        List<Document> stages = new ArrayList<>();
        for (Object stage : (List<?>) pipeline) {
            String name = AggregationStages.nameOf(stage);
            if (!ALLOWED.contains(name)) {
                throw new MongoServerError(
                        ErrorCodes.INVALID_OPTIONS,
                        "InvalidOptions",
                        name + " is not allowed to be used within an update");
            }
            stages.add(AggregationStages.forLibrary((Document) stage));
        }
        return stages;
    }

    /**
     * The document after {@code stages}; {@code document} itself is not changed.
     *
     * @throws MongoServerError ImmutableField (66) when the pipeline changed the {@code _id}
     */
    static Document apply(List<Document> stages, Document document, MongoCollection<?> collection) {
        if (stages.isEmpty()) {
            return document.cloneDeeply();
        }
        Document result = document.cloneDeeply();
        for (Document stage : stages) {
            result = applyStage(stage, result, collection);
        }
        Object id = document.get("_id");
        if (!result.containsKey("_id")) {
            Document withId = new Document("_id", id);
            withId.putAll(result);
            return withId;
        }
        if (id != null && !DocumentDiff.sameBson(id, result.get("_id"))) {
            throw new MongoServerError(
                    ErrorCodes.IMMUTABLE_FIELD,
                    "ImmutableField",
                    "Performing an update on the path '_id' would modify the immutable field '_id'");
        }
        return result;
    }

    /** One stage on one document: field stages as MongoDB evaluates them ({@link FieldStages}), others by the library. */
    private static Document applyStage(Document stage, Document document, MongoCollection<?> collection) {
        String name = stage.keySet().iterator().next();
        Object spec = stage.get(name);
        Document out = null;
        if (name.equals("$addFields") && FieldStages.evaluates(spec)) {
            out = FieldStages.addFields(document, (Document) spec);
        } else if (name.equals("$project") && spec instanceof Document projection) {
            out = FieldStages.Inclusion.of(projection)
                    .map(inclusion -> inclusion.apply(document))
                    .orElse(null);
        }
        if (out != null) {
            return out;
        }
        List<Document> library = Aggregation.fromPipeline(
                        List.of(stage), null, collection.getDatabase(), collection, NoopOplog.get())
                .runStages(Stream.of(document));
        return library.isEmpty() ? new Document() : library.get(0);
    }

    /**
     * The document an upsert starts from: the equality conditions of {@code filter} ({@code field: value}, {@code
     * field: {$eq: value}}, and those inside {@code $and}), dotted paths as sub-documents, with an ObjectId
     * {@code _id} when the filter names none.
     */
    static Document upsertSeed(Document filter) {
        Document seed = new Document();
        addEqualities(filter, seed);
        if (!seed.containsKey("_id")) {
            Document withId = new Document("_id", new ObjectId());
            withId.putAll(seed);
            return withId;
        }
        return seed;
    }

    private static void addEqualities(Document filter, Document seed) {
        for (Map.Entry<String, Object> condition : filter.entrySet()) {
            String field = condition.getKey();
            Object value = condition.getValue();
            if (field.equals("$and") && value instanceof List<?> clauses) {
                clauses.stream()
                        .filter(Document.class::isInstance)
                        .forEach(clause -> addEqualities((Document) clause, seed));
            } else if (!field.startsWith("$")) {
                if (value instanceof Document operators
                        && operators.keySet().stream().anyMatch(k -> k.startsWith("$"))) {
                    if (operators.size() == 1 && operators.containsKey("$eq")) {
                        set(seed, field, operators.get("$eq"));
                    }
                } else if (!(value instanceof BsonRegularExpression)) {
                    set(seed, field, value);
                }
            }
        }
    }

    private static void set(Document document, String path, Object value) {
        String[] parts = path.split("\\.");
        Document current = document;
        for (int i = 0; i < parts.length - 1; i++) {
            if (current.get(parts[i]) instanceof Document existing) {
                current = existing;
            } else {
                Document created = new Document();
                current.put(parts[i], created);
                current = created;
            }
        }
        current.put(parts[parts.length - 1], value);
    }
}
