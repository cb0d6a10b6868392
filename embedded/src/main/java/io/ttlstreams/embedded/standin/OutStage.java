package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * An {@code aggregate} ending in {@code $out}, written as MongoDB writes it, so that its change events are MongoDB's:
 * the results go into a temporary collection {@code tmp.agg_out.<UUID>} of the target database (a {@code create} and
 * one {@code insert} per document, under the temporary namespace), which is then renamed over the target with {@code
 * dropTarget} (one {@code rename}, under the temporary namespace, naming the target in {@code to}; no {@code drop} of
 * the target). The target's documents therefore arrive under a new collection UUID, and a stream that filters on the
 * target's namespace sees only the {@code rename}.
 *
 * <p>Sources: MongoDB manual, "$out (aggregation)", Behaviors ("Replace Existing Collection": create a temp collection,
 * copy the indexes, insert the documents, then {@code renameCollection} with {@code dropTarget: true}), and the
 * server's {@code src/mongo/db/pipeline/document_source_out.cpp} (the temporary namespace {@code tmp.agg_out.} plus a
 * UUID, in the target database). mongo-java-server's own {@code $out} instead drops the target with a {@code drop}
 * event and moves a collection over it with none. Not played: copying the target's secondary indexes onto the
 * temporary collection (their {@code createIndexes} events, expanded only, are missing) and the other {@code $out}
 * options (time series).
 */
final class OutStage {

    /** What the stand-in runs for the stage: a command in a database, the aggregation of the other stages, a rename. */
    interface Backend {

        Document command(String database, String command, Document query);

        List<Document> aggregate(List<Document> stages, String database, String collection);

        Document rename(Document renameCollection);
    }

    private static final String TEMPORARY_PREFIX = "tmp.agg_out.";

    private OutStage() {}

    /** Whether {@code query}, an {@code aggregate}, ends in {@code $out}. */
    static boolean endsIn(Document query) {
        return query.get("pipeline") instanceof List<?> stages
                && !stages.isEmpty()
                && stages.get(stages.size() - 1) instanceof Document last
                && last.size() == 1
                && last.containsKey("$out");
    }

    /**
     * Runs {@code query}, an {@code aggregate} that {@link #endsIn} {@code $out}, in {@code database}.
     *
     * @return the reply MongoDB gives: an empty, exhausted cursor
     */
    static Document run(String database, Document query, Backend backend) {
        List<?> pipeline = (List<?>) query.get("pipeline");
        String[] target = target(database, ((Document) pipeline.get(pipeline.size() - 1)).get("$out"));
        List<Document> stages = new ArrayList<>();
        for (Object stage : pipeline.subList(0, pipeline.size() - 1)) {
            AggregationStages.nameOf(stage);
            stages.add(AggregationStages.forLibrary((Document) stage));
        }
        Object source = query.get("aggregate");
        List<Document> results =
                backend.aggregate(stages, database, source instanceof String collection ? collection : null);
        String temporary = TEMPORARY_PREFIX + UUID.randomUUID();
        backend.command(target[0], "create", new Document("create", temporary));
        try {
            if (!results.isEmpty()) {
                Document reply = backend.command(
                        target[0],
                        "insert",
                        new Document("insert", temporary)
                                .append("documents", results)
                                .append("ordered", true));
                if (reply.get("writeErrors") instanceof List<?> errors && !errors.isEmpty()) {
                    Document first = (Document) errors.get(0);
                    throw new MongoServerError(
                            ((Number) first.get("code")).intValue(), String.valueOf(first.get("errmsg")));
                }
            }
            backend.rename(new Document("renameCollection", target[0] + "." + temporary)
                    .append("to", target[0] + "." + target[1])
                    .append("dropTarget", true));
        } catch (RuntimeException e) {
            // MongoDB drops the temporary collection of a failed $out, and the target stays as it was.
            backend.command(target[0], "drop", new Document("drop", temporary));
            throw e;
        }
        Document cursor = new Document("firstBatch", List.of())
                .append("id", 0L)
                .append("ns", database + "." + (source instanceof String collection ? collection : "$cmd.aggregate"));
        Document reply = new Document("cursor", cursor);
        Utils.markOkay(reply);
        return reply;
    }

    /** The target's database and collection: {@code $out: "coll"} in the aggregate's database, or {@code {db, coll}}. */
    private static String[] target(String database, Object spec) {
        if (spec instanceof String collection && !collection.isEmpty()) {
            return new String[] {database, collection};
        }
        if (spec instanceof Document document
                && document.get("coll") instanceof String collection
                && !collection.isEmpty()) {
            Object db = document.get("db");
            return new String[] {db instanceof String name && !name.isEmpty() ? name : database, collection};
        }
        throw new MongoServerError(
                ErrorCodes.FAILED_TO_PARSE,
                "FailedToParse",
                "$out takes a collection name or a document {db: <db>, coll: <collection>}, not " + spec);
    }
}
