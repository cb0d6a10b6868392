package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.backend.DefaultQueryMatcher;
import de.bwaldvogel.mongo.backend.QueryMatcher;
import de.bwaldvogel.mongo.backend.aggregation.Aggregation;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The stages of a change stream's pipeline after {@code $changeStream}, applied to one event at a time.
 *
 * <p>The shapes the production pipeline uses are evaluated directly, because mongo-java-server's general
 * aggregation costs a stream, a pipeline run and an expression evaluation per field for every event, which under
 * load was the stand-in's largest cost: a {@code $match} query (by mongo-java-server's own query matcher, as its
 * {@code $match} stage does), a {@code $match} of {@code $expr} comparing {@code $bsonSize} of a field path with a
 * number, and an inclusion {@code $project} of field paths. Every other stage MongoDB allows in a change stream,
 * and an event one of those shapes does not cover (a projected path through an array), goes
 * through mongo-java-server's aggregation, with {@code $bsonSize} of a field path, which it lacks, computed onto the
 * event first, and {@code $$REMOVE}, which it lacks too, read as the missing value it is; an {@code $addFields}/{@code
 * $set} with these is evaluated as any other. A stage MongoDB does not allow there fails the stream's opening.
 */
final class StreamStages {

    /** The stages MongoDB allows in a change stream: each turns one event into at most one. */
    private static final Set<String> ALLOWED =
            Set.of("$addFields", "$match", "$project", "$replaceRoot", "$replaceWith", "$redact", "$set", "$unset");

    /** The comparisons a compiled {@code $bsonSize} guard takes. */
    private static final Set<String> COMPARISONS = Set.of("$lt", "$lte", "$gt", "$gte", "$eq", "$ne");

    private static final String SIZE_FIELD = "__standin_bsonSize_";

    /** One stage on one event: the event after it, or null when the stage drops it. */
    private interface Stage {
        Document apply(Document event);
    }

    private final List<Stage> stages = new ArrayList<>();

    /**
     * @param stages   the stages, as the client sent them
     * @param assemble builds mongo-java-server's aggregation of (rewritten) stages
     */
    StreamStages(List<Document> stages, Function<List<Document>, Aggregation> assemble) {
        for (Document stage : stages) {
            String name = AggregationStages.nameOf(stage);
            if (!ALLOWED.contains(name)) {
                throw new MongoServerError(
                        ErrorCodes.ILLEGAL_OPERATION,
                        "IllegalOperation",
                        name + " is not permitted in a $changeStream pipeline");
            }
            // Built for every stage, so that a stage mongo-java-server refuses fails the opening as before.
            General general = new General(stage, assemble);
            this.stages.add(compile(name, stage.get(name), general));
        }
    }

    /** The event after the stages, or empty when they dropped it. */
    Optional<Document> apply(Document event) {
        Document current = event;
        for (Stage stage : stages) {
            current = stage.apply(current);
            if (current == null) {
                return Optional.empty();
            }
        }
        return Optional.of(current);
    }

    private static Stage compile(String name, Object specification, General general) {
        if (name.equals("$match") && specification instanceof Document query) {
            return FieldStages.mentions(query, "$expr") ? sizeGuard(query).orElse(general) : new Matching(query);
        }
        if (name.equals("$project") && specification instanceof Document projection) {
            Optional<FieldStages.Inclusion> inclusion = FieldStages.Inclusion.of(projection);
            if (inclusion.isPresent()) {
                return event -> {
                    Document projected = inclusion.get().apply(event);
                    return projected != null ? projected : general.apply(event);
                };
            }
        }
        if ((name.equals("$addFields") || name.equals("$set")) && specification instanceof Document original) {
            Sizes sizes = new Sizes();
            Document spec = (Document) sizes.rewrite(original);
            if (FieldStages.evaluates(spec)) {
                return event -> {
                    sizes.computeOnto(event);
                    Document added = FieldStages.addFields(event, spec);
                    sizes.removeFrom(event);
                    if (added == null) {
                        return general.apply(event);
                    }
                    sizes.removeFrom(added);
                    return added;
                };
            }
        }
        return general;
    }

    /** {@code {$expr: {<comparison>: [{$bsonSize: "$path"}, <number>]}}}, compiled; empty for any other query. */
    private static Optional<Stage> sizeGuard(Document query) {
        if (query.size() != 1 || !(query.get("$expr") instanceof Document expression) || expression.size() != 1) {
            return Optional.empty();
        }
        String comparison = expression.keySet().iterator().next();
        if (!COMPARISONS.contains(comparison)
                || !(expression.get(comparison) instanceof List<?> operands)
                || operands.size() != 2
                || !(operands.get(0) instanceof Document size)
                || size.size() != 1
                || !(size.get("$bsonSize") instanceof String path)
                || !isFieldPath(path)
                || !(operands.get(1) instanceof Number bound)) {
            return Optional.empty();
        }
        String field = path.substring(1);
        double limit = bound.doubleValue();
        return Optional.of(event -> {
            Integer bytes = bsonSize(event, field);
            // $bsonSize of a missing or null value is null, which sorts before every number.
            int order = bytes == null ? -1 : Double.compare(bytes, limit);
            boolean keep = switch (comparison) {
                case "$lt" -> order < 0;
                case "$lte" -> order <= 0;
                case "$gt" -> order > 0;
                case "$gte" -> order >= 0;
                case "$eq" -> order == 0 && bytes != null;
                default -> !(order == 0 && bytes != null);
            };
            return keep ? event : null;
        });
    }

    private static boolean isFieldPath(String path) {
        return path.startsWith("$") && !path.startsWith("$$") && path.length() > 1;
    }

    /** A {@code $match} query, by mongo-java-server's query matcher (what its {@code $match} stage runs). */
    private static final class Matching implements Stage {

        private final QueryMatcher matcher = new DefaultQueryMatcher();
        private final Document query;

        Matching(Document query) {
            this.query = query;
        }

        @Override
        public Document apply(Document event) {
            return matcher.matches(event, query) ? event : null;
        }
    }

    /**
     * One stage through mongo-java-server's aggregation, its expressions {@linkplain Sizes rewritten} to what that
     * evaluates.
     */
    private static final class General implements Stage {

        private final Aggregation aggregation;
        private final Sizes sizes = new Sizes();

        General(Document stage, Function<List<Document>, Aggregation> assemble) {
            this.aggregation = assemble.apply(List.of((Document) sizes.rewrite(AggregationStages.forLibrary(stage))));
        }

        @Override
        public Document apply(Document event) {
            sizes.computeOnto(event);
            List<Document> out = aggregation.runStages(Stream.of(event));
            sizes.removeFrom(event);
            if (out.isEmpty()) {
                return null;
            }
            Document result = out.get(0);
            sizes.removeFrom(result);
            return result;
        }
    }

    /**
     * What mongo-java-server does not evaluate in an expression, rewritten to what it does: each {@code $bsonSize} of
     * a field path becomes a reference to a field computed onto the event first ({@link #computeOnto}) and removed
     * from what comes out ({@link #removeFrom}); {@code $$REMOVE} (MongoDB's missing value, which unsets the field it
     * is assigned to, as in a {@code $cond} that keeps a field only when small: MongoDB manual, "Variables in
     * Aggregation Expressions") becomes a reference to a field no event has, which evaluates to the same missing value.
     * The change-stream pipeline's size bounds use both ({@code $bsonSize} is MongoDB 4.4+, manual page
     * "$bsonSize (aggregation)").
     */
    private static final class Sizes {

        /** A field no event has: a path to it evaluates to missing, as {@code $$REMOVE} does. */
        private static final String MISSING = "$__standin_missing_";

        /** The field paths whose BSON sizes are computed, by index of the replaced expression. */
        private final List<String> sizedPaths = new ArrayList<>();

        Object rewrite(Object value) {
            if ("$$REMOVE".equals(value)) {
                return MISSING;
            }
            if (value instanceof Document document) {
                if (document.size() == 1 && document.containsKey("$bsonSize")) {
                    Object argument = document.get("$bsonSize");
                    if (!(argument instanceof String path) || !isFieldPath(path)) {
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

        void computeOnto(Document event) {
            for (int i = 0; i < sizedPaths.size(); i++) {
                event.put(SIZE_FIELD + i, bsonSize(event, sizedPaths.get(i)));
            }
        }

        void removeFrom(Document document) {
            for (int i = 0; i < sizedPaths.size(); i++) {
                document.remove(SIZE_FIELD + i);
            }
        }
    }

    /** The size of the document at {@code path}, null when there is none there (as {@code $bsonSize} of null). */
    private static Integer bsonSize(Document event, String path) {
        Optional<Object> value = UpdateDescriptions.value(event, path);
        if (value.isEmpty() || !(value.get() instanceof Document document)) {
            return null;
        }
        return DocumentDiff.size(document);
    }
}
