package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.backend.aggregation.Expression;
import de.bwaldvogel.mongo.bson.BsonTimestamp;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The variables of one command, substituted into its expressions before mongo-java-server evaluates them, which knows
 * neither a command's {@code let} nor a {@code $$NOW} that stays the same for the whole command.
 *
 * <ul>
 *   <li>{@code $$NOW}: the command's time, one value for every document and stage, as MongoDB documents it;
 *       {@code $$CLUSTER_TIME}: the cluster time the command ran at.</li>
 *   <li>{@code let} (MongoDB 5.0): constants the command defines, each an expression evaluated once, usable as
 *       {@code $$name} in aggregation expressions: in a pipeline, and in a query's {@code $expr}.</li>
 * </ul>
 * A reference becomes {@code {$literal: value}}. Where an expression binds the same name ({@code $let}, {@code $map},
 * {@code $filter}, {@code $reduce}, the {@code let} of {@code $lookup}) the inner binding wins, as in MongoDB.
 */
final class CommandVariables {

    private final Map<String, Object> values;

    private CommandVariables(Map<String, Object> values) {
        this.values = values;
    }

    /**
     * The variables of {@code command}: its {@code let}, if any, and the system variables at {@code now}.
     *
     * @throws MongoServerError when {@code let} is not a document
     */
    static CommandVariables of(Document command, Instant now, BsonTimestamp clusterTime) {
        Map<String, Object> values = new HashMap<>();
        values.put("NOW", Instant.ofEpochMilli(now.toEpochMilli()));
        values.put("CLUSTER_TIME", clusterTime);
        CommandVariables system = new CommandVariables(Map.copyOf(values));
        Object let = command.get("let");
        if (let != null && !(let instanceof Document)) {
            throw new MongoServerError(
                    ErrorCodes.TYPE_MISMATCH,
                    "TypeMismatch",
                    "BSON field 'let' is the wrong type '" + let.getClass().getSimpleName()
                            + "', expected type 'object'");
        }
        if (let instanceof Document constants) {
            for (Map.Entry<String, Object> constant : constants.entrySet()) {
                Object expression = system.inExpression(constant.getValue());
                values.put(constant.getKey(), Expression.evaluateDocument(expression, new Document()));
            }
        }
        return new CommandVariables(values);
    }

    /**
     * {@code query}, a command, with its variables substituted where they mean something: the filters' {@code $expr}
     * of {@code find}, {@code count}, {@code delete}, {@code update} and {@code findAndModify}, an update pipeline, an
     * aggregation pipeline (not a change stream's, whose stages run when events come). Other commands, and commands
     * without variables, come back as they are.
     */
    static Document applyTo(String command, Document query, Instant now, BsonTimestamp clusterTime) {
        String name = command.toLowerCase(java.util.Locale.ROOT);
        if (!SUBSTITUTED.contains(name) || noneIn(query)) {
            return query;
        }
        if (name.equals("aggregate")
                && query.get("pipeline") instanceof List<?> pipeline
                && !pipeline.isEmpty()
                && pipeline.get(0) instanceof Document first
                && first.containsKey("$changeStream")) {
            return query;
        }
        CommandVariables variables = of(query, now, clusterTime);
        Document out = new Document(query);
        out.remove("let");
        switch (name) {
            case "find" -> out.computeIfPresent("filter", (key, filter) -> variables.inQuery(filter));
            case "count" -> out.computeIfPresent("query", (key, filter) -> variables.inQuery(filter));
            case "aggregate" -> out.computeIfPresent("pipeline", (key, pipeline) -> variables.inExpression(pipeline));
            case "findandmodify" -> {
                out.computeIfPresent("query", (key, filter) -> variables.inQuery(filter));
                out.computeIfPresent("update", (key, update) -> variables.inUpdate(update));
            }
            case "update", "delete" -> {
                String statements = name.equals("update") ? "updates" : "deletes";
                if (out.get(statements) instanceof List<?> list) {
                    out.put(
                            statements,
                            list.stream()
                                    .map(statement -> variables.inStatement(statement))
                                    .toList());
                }
            }
            default -> {}
        }
        return out;
    }

    private static final Set<String> SUBSTITUTED =
            Set.of("find", "count", "aggregate", "findandmodify", "update", "delete");

    private Object inUpdate(Object update) {
        return update instanceof List<?> ? inExpression(update) : update;
    }

    private Object inStatement(Object statement) {
        if (!(statement instanceof Document document)) {
            return statement;
        }
        Document out = new Document(document);
        out.computeIfPresent("q", (key, filter) -> inQuery(filter));
        out.computeIfPresent("u", (key, update) -> inUpdate(update));
        return out;
    }

    /** True when {@code command} needs no substitution: no {@code let}, no reference to a system variable. */
    static boolean noneIn(Document command) {
        return !command.containsKey("let") && !mentionsSystemVariable(command);
    }

    private static boolean mentionsSystemVariable(Object value) {
        if (value instanceof String string) {
            return string.startsWith("$$NOW") || string.startsWith("$$CLUSTER_TIME");
        }
        if (value instanceof Document document) {
            return document.values().stream().anyMatch(CommandVariables::mentionsSystemVariable);
        }
        return value instanceof List<?> list && list.stream().anyMatch(CommandVariables::mentionsSystemVariable);
    }

    /** An aggregation expression, or a pipeline, with the variables substituted. */
    Object inExpression(Object expression) {
        return substitute(expression, Set.of());
    }

    /** A query filter with the variables substituted inside its {@code $expr} conditions, the only place they mean anything. */
    Object inQuery(Object filter) {
        if (filter instanceof Document document) {
            Document out = new Document();
            document.forEach(
                    (key, value) -> out.put(key, key.equals("$expr") ? substitute(value, Set.of()) : inQuery(value)));
            return out;
        }
        if (filter instanceof List<?> list) {
            return list.stream().map(this::inQuery).toList();
        }
        return filter;
    }

    private Object substitute(Object value, Set<String> bound) {
        if (value instanceof String reference && reference.startsWith("$$")) {
            return reference(reference, bound).orElse(value);
        }
        if (value instanceof List<?> list) {
            return list.stream().map(element -> substitute(element, bound)).toList();
        }
        if (!(value instanceof Document document)) {
            return value;
        }
        if (document.size() == 1) {
            String operator = document.keySet().iterator().next();
            Object argument = document.get(operator);
            if (operator.equals("$literal")) {
                return document;
            }
            if (argument instanceof Document arguments) {
                switch (operator) {
                    case "$let" -> {
                        return scoped(operator, arguments, bound, keysOf(arguments.get("vars")), "vars");
                    }
                    case "$map", "$filter" -> {
                        String name = arguments.get("as") instanceof String as ? as : "this";
                        return scoped(operator, arguments, bound, Set.of(name), "input", "limit");
                    }
                    case "$reduce" -> {
                        return scoped(operator, arguments, bound, Set.of("value", "this"), "input", "initialValue");
                    }
                    case "$lookup" -> {
                        return scoped(operator, arguments, bound, keysOf(arguments.get("let")), "let");
                    }
                    default -> {}
                }
            }
        }
        Document out = new Document();
        document.forEach((key, inner) -> out.put(key, substitute(inner, bound)));
        return out;
    }

    /**
     * An operator that binds {@code names}: the arguments named in {@code outer} see the variables as outside it, the
     * others (its body) with {@code names} bound.
     */
    private Document scoped(
            String operator, Document arguments, Set<String> bound, Set<String> names, String... outer) {
        Set<String> inner = new HashSet<>(bound);
        inner.addAll(names);
        List<String> outside = List.of(outer);
        Document out = new Document();
        arguments.forEach((key, value) -> {
            if (outside.contains(key)
                    && value instanceof Document definitions
                    && (key.equals("vars") || key.equals("let"))) {
                Document substituted = new Document();
                definitions.forEach((name, definition) -> substituted.put(name, substitute(definition, bound)));
                out.put(key, substituted);
            } else {
                out.put(key, substitute(value, outside.contains(key) ? bound : inner));
            }
        });
        return new Document(operator, out);
    }

    private static Set<String> keysOf(Object definitions) {
        return definitions instanceof Document document ? document.keySet() : Set.of();
    }

    /** The literal a {@code $$name} or {@code $$name.path} reference stands for; empty for a variable not ours. */
    private Optional<Object> reference(String reference, Set<String> bound) {
        String path = reference.substring(2);
        int dot = path.indexOf('.');
        String name = dot < 0 ? path : path.substring(0, dot);
        if (bound.contains(name) || !values.containsKey(name)) {
            return Optional.empty();
        }
        Object value = values.get(name);
        if (dot >= 0) {
            for (String field : path.substring(dot + 1).split("\\.")) {
                value = value instanceof Document document ? document.get(field) : null;
            }
        }
        return Optional.of(new Document("$literal", value));
    }
}
