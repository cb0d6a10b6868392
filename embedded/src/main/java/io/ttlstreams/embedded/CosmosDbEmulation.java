package io.ttlstreams.embedded;

import de.bwaldvogel.mongo.bson.Document;
import java.util.List;
import java.util.Set;

/**
 * The stand-in playing Azure Cosmos DB for MongoDB (RU), as far as change streams go: it refuses every change stream
 * Cosmos DB documents as refused, so that the connector configurations and the processor meet what the service
 * would do. An emulation of its documented constraints, never of the service itself.
 *
 * <ul>
 *   <li>Only collection watches: a database or cluster {@code $changeStream} is refused.</li>
 *   <li>{@code fullDocument: "updateLookup"} is required.</li>
 *   <li>The pipeline must start with {@code $match} of {@code operationType} in insert, update, replace, and {@code
 *       $project} of {@code _id, fullDocument, ns, documentKey}: so delete events never come out, as on Cosmos DB.
 *       Stages after those two are let through.</li>
 * </ul>
 * Source: "Change streams in Azure Cosmos DB's API for MongoDB" (docs/compatible-services.md).
 */
final class CosmosDbEmulation {

    /** The error code the stand-in answers a refused change stream with (MongoDB's CommandNotSupported). */
    static final int REFUSED_CODE = 115;

    private static final Set<String> REQUIRED_PROJECTION = Set.of("_id", "fullDocument", "ns", "documentKey");
    private static final List<String> REQUIRED_OPERATIONS = List.of("insert", "update", "replace");

    private CosmosDbEmulation() {}

    /** The error reply Cosmos DB would give {@code command}, or null when it would run it. */
    static Document refusal(Document command) {
        if (command.isEmpty()
                || !"aggregate".equalsIgnoreCase(command.keySet().iterator().next())) {
            return null;
        }
        if (!(command.get("pipeline") instanceof List<?> pipeline)
                || pipeline.isEmpty()
                || !(pipeline.get(0) instanceof Document first)
                || !(first.get("$changeStream") instanceof Document options)) {
            return null;
        }
        if (!(command.get("aggregate") instanceof String)) {
            return refused("change streams watch one collection: no database or cluster watch");
        }
        if (!"updateLookup".equals(options.get("fullDocument"))) {
            return refused("change streams require fullDocument: updateLookup");
        }
        if (pipeline.size() < 3 || !isRequiredMatch(pipeline.get(1)) || !isRequiredProjection(pipeline.get(2))) {
            return refused("change streams require a $match of operationType in [insert, update, replace] and a"
                    + " $project of _id, fullDocument, ns, documentKey");
        }
        return null;
    }

    private static boolean isRequiredMatch(Object stage) {
        return stage instanceof Document document
                && document.size() == 1
                && document.get("$match") instanceof Document match
                && match.size() == 1
                && match.get("operationType") instanceof Document operationType
                && operationType.size() == 1
                && operationType.get("$in") instanceof List<?> in
                && in.equals(REQUIRED_OPERATIONS);
    }

    private static boolean isRequiredProjection(Object stage) {
        return stage instanceof Document document
                && document.size() == 1
                && document.get("$project") instanceof Document project
                && project.keySet().equals(REQUIRED_PROJECTION)
                && project.values().stream().allMatch(value -> value instanceof Number n && n.intValue() == 1);
    }

    private static Document refused(String why) {
        return new Document("ok", 0.0)
                .append("errmsg", "Cosmos DB emulation: " + why)
                .append("code", REFUSED_CODE)
                .append("codeName", "CommandNotSupported");
    }
}
