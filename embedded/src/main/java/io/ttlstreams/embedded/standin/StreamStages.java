package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.backend.aggregation.Aggregation;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import de.bwaldvogel.mongo.wire.bson.BsonEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The stages of a change stream's pipeline after {@code $changeStream}, applied to one event at a time, with
 * mongo-java-server's aggregation plus {@code $bsonSize} of a field path, which it lacks and the production
 * pipeline uses: each such expression is replaced by a reference to a field computed onto the event first, and
 * removed from what comes out.
 */
final class StreamStages {

    /** The stages MongoDB allows in a change stream: each turns one event into at most one. */
    private static final Set<String> ALLOWED =
            Set.of("$addFields", "$match", "$project", "$replaceRoot", "$replaceWith", "$redact", "$set", "$unset");

    private static final String SIZE_FIELD = "__standin_bsonSize_";

    private final Aggregation aggregation;
    /** The field paths whose BSON sizes are computed, by index of the replaced expression. */
    private final List<String> sizedPaths = new ArrayList<>();

    /**
     * @param stages   the stages, as the client sent them
     * @param assemble builds mongo-java-server's aggregation from the rewritten stages
     */
    StreamStages(List<Document> stages, Function<List<Document>, Aggregation> assemble) {
        List<Document> rewritten = new ArrayList<>();
        for (Document stage : stages) {
            String name = stage.keySet().iterator().next();
            if (stage.size() != 1 || !ALLOWED.contains(name)) {
                throw new MongoServerError(
                        ErrorCodes.ILLEGAL_OPERATION,
                        "IllegalOperation",
                        name + " is not permitted in a $changeStream pipeline");
            }
            rewritten.add((Document) rewrite(stage));
        }
        this.aggregation = assemble.apply(rewritten);
    }

    /** The event after the stages, or empty when they dropped it. */
    Optional<Document> apply(Document event) {
        for (int i = 0; i < sizedPaths.size(); i++) {
            event.put(SIZE_FIELD + i, bsonSize(event, sizedPaths.get(i)));
        }
        List<Document> out = aggregation.runStages(Stream.of(event));
        if (out.isEmpty()) {
            return Optional.empty();
        }
        Document result = out.get(0);
        for (int i = 0; i < sizedPaths.size(); i++) {
            result.remove(SIZE_FIELD + i);
        }
        return Optional.of(result);
    }

    private Object rewrite(Object value) {
        if (value instanceof Document document) {
            if (document.size() == 1 && document.containsKey("$bsonSize")) {
                Object argument = document.get("$bsonSize");
                if (!(argument instanceof String path) || !path.startsWith("$") || path.startsWith("$$")) {
                    throw new MongoServerError(
                            ErrorCodes.ILLEGAL_OPERATION,
                            "IllegalOperation",
                            "the MongoDB stand-in supports $bsonSize of a field path only, got " + argument);
                }
                sizedPaths.add(path.substring(1));
                return "$" + SIZE_FIELD + (sizedPaths.size() - 1);
            }
            Document copy = new Document();
            for (Map.Entry<String, Object> entry : document.entrySet()) {
                copy.put(entry.getKey(), rewrite(entry.getValue()));
            }
            return copy;
        }
        if (value instanceof List<?> list) {
            return list.stream().map(this::rewrite).toList();
        }
        return value;
    }

    /** The size of the document at {@code path}, null when there is none there (as {@code $bsonSize} of null). */
    private static Integer bsonSize(Document event, String path) {
        Optional<Object> value = UpdateDescriptions.value(event, path);
        if (value.isEmpty() || !(value.get() instanceof Document document)) {
            return null;
        }
        ByteBuf buffer = Unpooled.buffer();
        try {
            BsonEncoder.encodeDocument(document, buffer);
            return buffer.writerIndex();
        } finally {
            buffer.release();
        }
    }
}
