package io.ttlstreams.contract;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.bson.BsonDocument;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;

/**
 * The one grammar of a delete command, which the sink guard enforces on every record: a filter that pins one
 * document by its key and otherwise only re-checks what the processor's rules decided on.
 *
 * <pre>
 * key    := the document key: {"_id": literal} plus, for a sharded collection, its shard-key fields, in the
 *           change stream's order (MongoDB puts the shard key first): _id required
 * value  := {"_id": filter, "ns": {"db": string, "coll": string}, "rule": string, "deadline": date,
 *            "issuedAt": date [, "update": update]}   (issuedAt absent only in commands of processors that did not
 *           write it yet)
 * update := {"$set": {path: date}}, the date equal to the deadline: a mark command (nothing else: no other
 *           operator, no second field, no operator in the value)
 * filter := the key's fields, equal to the record key's, in its order; then conditions:
 *           path: {"$eq": any value}  |  path: {"$exists": true|false}  |  "$and": [partial]
 * partial:= a rule's partial filter: path: literal | path: {op: operand, ...} | "$and": [partial, ...]
 *           | "$or": [partial, ...] (inside the $and, so the key still pins the document)
 *           with op in $eq $exists $gt $gte $lt $lte $type $in
 * literal:= any value but a regular expression or undefined, with no field name starting with $ at any depth
 *           (a document-key field is not an array either)
 * path   := dot-separated non-empty segments, none starting with $
 * </pre>
 *
 * Everything else ({@code $expr}, {@code $where}, {@code $regex}, {@code $or} beside the key, {@code $nor}, an empty
 * filter, a
 * condition on a key field, ...) is refused with the reason.
 */
final class DeleteCommandGrammar {

    /** The value's fields, in the order the processor writes them. */
    private static final List<String> VALUE_FIELDS = List.of(
            DeleteCommand.FILTER_FIELD,
            DeleteCommand.NAMESPACE_FIELD,
            DeleteCommand.RULE_FIELD,
            DeleteCommand.DEADLINE_FIELD,
            DeleteCommand.ISSUED_AT_FIELD,
            DeleteCommand.UPDATE_FIELD);

    private static final String AND = "$and";
    private static final String OR = "$or";
    private static final Set<String> RANGE_OPERATORS = Set.of("$gt", "$gte", "$lt", "$lte");
    private static final JsonWriterSettings RELAXED =
            JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();

    private DeleteCommandGrammar() {}

    /** See {@link DeleteCommand#parse}. */
    static DeleteCommand parse(String keyJson, String valueJson) {
        if (keyJson == null) {
            throw new InvalidDeleteCommandException(
                    "the record has no key; a delete command's key is its document key");
        }
        if (valueJson == null) {
            throw new InvalidDeleteCommandException("the record has no value (a tombstone is not a delete command)");
        }
        BsonDocument key = StrictJson.parse(keyJson, "record key");
        BsonDocument value = StrictJson.parse(valueJson, "record value");
        checkDocumentKey(key);
        for (String field : value.keySet()) {
            if (!VALUE_FIELDS.contains(field)) {
                throw new InvalidDeleteCommandException("unexpected field '" + field + "' in the value; a delete"
                        + " command has only " + VALUE_FIELDS);
            }
        }
        BsonDocument filter = required(value, DeleteCommand.FILTER_FIELD, BsonType.DOCUMENT, "the delete filter")
                .asDocument();
        checkFilter(filter, key);
        Namespace namespace = namespace(
                required(value, DeleteCommand.NAMESPACE_FIELD, BsonType.DOCUMENT, "{\"db\": ..., \"coll\": ...}")
                        .asDocument());
        String rule = required(value, DeleteCommand.RULE_FIELD, BsonType.STRING, "the rule's name")
                .asString()
                .getValue();
        if (rule.isEmpty()) {
            throw new InvalidDeleteCommandException("field 'rule' is empty; it names the rule that set the deadline");
        }
        long deadline = required(value, DeleteCommand.DEADLINE_FIELD, BsonType.DATE_TIME, "a date")
                .asDateTime()
                .getValue();
        OptionalLong issuedAt = value.containsKey(DeleteCommand.ISSUED_AT_FIELD)
                ? OptionalLong.of(required(value, DeleteCommand.ISSUED_AT_FIELD, BsonType.DATE_TIME, "a date")
                        .asDateTime()
                        .getValue())
                : OptionalLong.empty();
        String markField = value.containsKey(DeleteCommand.UPDATE_FIELD)
                ? markField(value.get(DeleteCommand.UPDATE_FIELD), deadline)
                : null;
        return new DeleteCommand(key, filter, namespace, rule, deadline, issuedAt, markField);
    }

    /**
     * The field a mark command's update sets: the update must be exactly {@code {"$set": {path: <the deadline>}}}.
     */
    private static String markField(BsonValue update, long deadline) {
        String shape = "a mark's update is exactly {\"$set\": {field: the deadline}}";
        if (!update.isDocument()) {
            throw new InvalidDeleteCommandException("field 'update' is " + describe(update) + "; " + shape);
        }
        BsonDocument operators = update.asDocument();
        for (String operator : operators.keySet()) {
            if (!operator.equals(DeleteCommand.SET)) {
                throw new InvalidDeleteCommandException(
                        "the update's operator '" + operator + "' is refused; " + shape);
            }
        }
        BsonValue set = operators.get(DeleteCommand.SET);
        if (set == null || !set.isDocument() || set.asDocument().size() != 1) {
            throw new InvalidDeleteCommandException("the update's $set must set exactly one field, not "
                    + (set == null ? "none" : describe(set)) + "; " + shape);
        }
        Map.Entry<String, BsonValue> field =
                set.asDocument().entrySet().iterator().next();
        checkPath(field.getKey(), "mark field");
        BsonValue value = field.getValue();
        if (!value.isDateTime()) {
            throw new InvalidDeleteCommandException(
                    "the mark field '" + field.getKey() + "' is set to " + describe(value) + ", not a date; " + shape);
        }
        if (value.asDateTime().getValue() != deadline) {
            throw new InvalidDeleteCommandException("the mark field '" + field.getKey() + "' is set to "
                    + describe(value) + ", not the command's deadline; " + shape);
        }
        return field.getKey();
    }

    private static BsonValue required(BsonDocument value, String field, BsonType type, String what) {
        BsonValue found = value.get(field);
        if (found == null) {
            throw new InvalidDeleteCommandException("the value has no field '" + field + "' (" + what + ")");
        }
        if (found.getBsonType() != type) {
            throw new InvalidDeleteCommandException("field '" + field + "' is " + describe(found) + ", not " + what);
        }
        return found;
    }

    private static void checkDocumentKey(BsonDocument key) {
        if (!key.containsKey("_id")) {
            throw new InvalidDeleteCommandException(
                    "the record key must be a document key holding _id, not " + CanonicalJson.of(key));
        }
        for (Map.Entry<String, BsonValue> field : key.entrySet()) {
            checkPath(field.getKey(), "document key field");
            BsonValue value = field.getValue();
            if (value.isArray() || value.isRegularExpression() || value.getBsonType() == BsonType.UNDEFINED) {
                throw new InvalidDeleteCommandException("document key field '" + field.getKey() + "' is "
                        + describe(value) + "; a document key holds no array, regular expression or undefined");
            }
            checkLiteral(value, "document key field '" + field.getKey() + "'");
        }
    }

    private static void checkFilter(BsonDocument filter, BsonDocument key) {
        List<Map.Entry<String, BsonValue>> entries = List.copyOf(filter.entrySet());
        int position = 0;
        for (Map.Entry<String, BsonValue> keyField : key.entrySet()) {
            if (position >= entries.size() || !entries.get(position).getKey().equals(keyField.getKey())) {
                String found =
                        position < entries.size() ? "'" + entries.get(position).getKey() + "'" : "nothing";
                throw new InvalidDeleteCommandException("the delete filter must start with the document key's field '"
                        + keyField.getKey() + "' (the key is " + CanonicalJson.of(key) + "), found " + found);
            }
            if (!entries.get(position).getValue().equals(keyField.getValue())) {
                throw new InvalidDeleteCommandException("the delete filter's '" + keyField.getKey()
                        + "' differs from the record key's: the command would delete another document");
            }
            position++;
        }
        for (Map.Entry<String, BsonValue> condition : entries.subList(position, entries.size())) {
            checkCondition(condition.getKey(), condition.getValue());
        }
    }

    /** A condition the processor adds after the document key: {@code $eq}, {@code $exists} or one {@code $and}. */
    private static void checkCondition(String name, BsonValue condition) {
        if (name.equals(AND)) {
            if (!condition.isArray()
                    || condition.asArray().size() != 1
                    || !condition.asArray().get(0).isDocument()) {
                throw new InvalidDeleteCommandException("the filter's $and must hold exactly one partial filter"
                        + " document, not " + describe(condition));
            }
            checkPartialFilter(condition.asArray().get(0).asDocument());
            return;
        }
        if (name.startsWith("$")) {
            throw new InvalidDeleteCommandException("operator " + name + " is not allowed in a delete filter; after"
                    + " the document key only {$eq: value}, {$exists: true|false} and one $and may follow");
        }
        checkPath(name, "condition");
        BsonDocument operator = condition.isDocument() ? condition.asDocument() : null;
        boolean valid = operator != null
                && operator.size() == 1
                && (operator.containsKey("$eq")
                        || operator.containsKey("$exists")
                                && operator.get("$exists").isBoolean());
        if (!valid) {
            throw new InvalidDeleteCommandException("the condition on '" + name + "' is " + describe(condition)
                    + "; a condition is {\"$eq\": value} or {\"$exists\": true|false}");
        }
    }

    /** The operators of a rule's {@code partial.filter}, and nothing else. */
    private static void checkPartialFilter(BsonDocument filter) {
        for (Map.Entry<String, BsonValue> entry : filter.entrySet()) {
            String name = entry.getKey();
            BsonValue value = entry.getValue();
            if (name.equals(AND) || name.equals(OR)) {
                if (!value.isArray() || value.asArray().isEmpty()) {
                    throw new InvalidDeleteCommandException(
                            "a partial filter's " + name + " needs a non-empty array, not " + describe(value));
                }
                for (BsonValue element : value.asArray()) {
                    if (!element.isDocument()) {
                        throw new InvalidDeleteCommandException(
                                "a partial filter's " + name + " holds documents, not " + describe(element));
                    }
                    checkPartialFilter(element.asDocument());
                }
            } else if (name.startsWith("$")) {
                throw new InvalidDeleteCommandException("operator " + name + " is not allowed in a partial filter;"
                        + " allowed: equality, $eq, $exists, $gt, $gte, $lt, $lte, $type, $in, $and, $or");
            } else {
                checkPath(name, "partial filter field");
                checkFieldCondition(name, value);
            }
        }
    }

    /** As in MongoDB, a value is an operator document when its first field name starts with {@code $}. */
    private static void checkFieldCondition(String path, BsonValue condition) {
        boolean operators = condition.isDocument()
                && !condition.asDocument().isEmpty()
                && condition.asDocument().getFirstKey().startsWith("$");
        if (!operators) {
            checkLiteral(condition, "the value compared with '" + path + "'");
            return;
        }
        for (Map.Entry<String, BsonValue> entry : condition.asDocument().entrySet()) {
            String operator = entry.getKey();
            BsonValue operand = entry.getValue();
            String where = operator + " on '" + path + "'";
            if (operator.equals("$eq")) {
                continue; // compares its operand literally, whatever it holds
            } else if (operator.equals("$exists")) {
                if (!operand.isBoolean() && !operand.isNumber()) {
                    throw new InvalidDeleteCommandException(where + " needs true or false, not " + describe(operand));
                }
            } else if (RANGE_OPERATORS.contains(operator)) {
                checkLiteral(operand, where);
            } else if (operator.equals("$type")) {
                checkTypeSpec(operand, where);
            } else if (operator.equals("$in")) {
                if (!operand.isArray()) {
                    throw new InvalidDeleteCommandException(where + " needs an array, not " + describe(operand));
                }
                for (BsonValue element : operand.asArray()) {
                    checkLiteral(element, where);
                }
            } else {
                throw new InvalidDeleteCommandException("operator " + operator + " on '" + path + "' is not allowed"
                        + " in a partial filter; allowed: $eq, $exists, $gt, $gte, $lt, $lte, $type, $in");
            }
        }
    }

    private static void checkTypeSpec(BsonValue operand, String where) {
        List<BsonValue> specs = operand.isArray() ? operand.asArray() : List.of(operand);
        if (specs.isEmpty() || specs.stream().anyMatch(spec -> !spec.isString() && !spec.isNumber())) {
            throw new InvalidDeleteCommandException(
                    where + " needs a type name or number, or an array of them, not " + describe(operand));
        }
    }

    /**
     * A value compared as data: a regular expression would be a pattern match and a {@code $} name an operator, so
     * neither may appear at any depth.
     */
    private static void checkLiteral(BsonValue value, String where) {
        Literals.problem(value).ifPresent(problem -> {
            throw new InvalidDeleteCommandException(
                    where + " is " + problem + "; a delete filter compares literal values");
        });
    }

    private static void checkPath(String path, String what) {
        for (String segment : path.split("\\.", -1)) {
            if (segment.isEmpty() || segment.startsWith("$")) {
                throw new InvalidDeleteCommandException("invalid " + what + " path '" + path
                        + "': segments between dots must be non-empty and must not start with $");
            }
        }
    }

    private static Namespace namespace(BsonDocument ns) {
        if (!ns.keySet().equals(Set.of("db", "coll"))
                || !ns.get("db").isString()
                || !ns.get("coll").isString()) {
            throw new InvalidDeleteCommandException(
                    "field 'ns' must be {\"db\": string, \"coll\": string}, not " + CanonicalJson.of(ns));
        }
        try {
            return Namespace.of(
                    ns.getString("db").getValue(), ns.getString("coll").getValue());
        } catch (IllegalArgumentException e) {
            throw new InvalidDeleteCommandException("field 'ns': " + e.getMessage());
        }
    }

    /** The type and the value in relaxed extended JSON, e.g. {@code int32 7}, cut at 80 characters. */
    private static String describe(BsonValue value) {
        String type = value.getBsonType().name().toLowerCase(Locale.ROOT).replace('_', ' ');
        String json = new BsonDocument("v", value).toJson(RELAXED);
        json = json.substring("{\"v\": ".length(), json.length() - 1);
        return type + " " + (json.length() > 80 ? json.substring(0, 77) + "..." : json);
    }
}
