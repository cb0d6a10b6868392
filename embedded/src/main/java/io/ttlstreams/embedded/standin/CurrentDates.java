package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.bson.BsonTimestamp;
import de.bwaldvogel.mongo.bson.Document;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code $currentDate} at the stand-in's time: mongo-java-server sets it from the machine's clock, which is not the
 * stand-in's when it plays a primary whose clock is off ({@link StandInSettings#clockOffset()}). Each field of an
 * operator update's {@code $currentDate} becomes a {@code $set} of the command's time, a date or, with
 * {@code {$type: "timestamp"}}, the cluster time, in {@code update} and {@code findAndModify}. A field the update also
 * names in {@code $set} is left to mongo-java-server, which refuses the conflict as MongoDB does.
 */
final class CurrentDates {

    private CurrentDates() {}

    /** {@code query} with its {@code $currentDate}s set to {@code now}; the same object when it has none. */
    static Document applyTo(String command, Document query, Instant now, BsonTimestamp clusterTime) {
        String name = command.toLowerCase(Locale.ROOT);
        if (name.equals("update") && query.get("updates") instanceof List<?> statements) {
            if (statements.stream().noneMatch(statement -> statement instanceof Document s && has(s.get("u")))) {
                return query;
            }
            Document out = new Document(query);
            out.put(
                    "updates",
                    statements.stream()
                            .map(statement -> statement instanceof Document s && has(s.get("u"))
                                    ? new Document(s).append("u", set((Document) s.get("u"), now, clusterTime))
                                    : statement)
                            .toList());
            return out;
        }
        if (name.equals("findandmodify") && has(query.get("update"))) {
            return new Document(query).append("update", set((Document) query.get("update"), now, clusterTime));
        }
        return query;
    }

    private static boolean has(Object update) {
        return update instanceof Document operators && operators.get("$currentDate") instanceof Document;
    }

    private static Document set(Document update, Instant now, BsonTimestamp clusterTime) {
        Document fields = (Document) update.get("$currentDate");
        Document set = update.get("$set") instanceof Document existing ? new Document(existing) : new Document();
        Document remaining = new Document();
        for (Map.Entry<String, Object> field : fields.entrySet()) {
            if (set.containsKey(field.getKey())) {
                remaining.put(field.getKey(), field.getValue());
                continue;
            }
            boolean timestamp = field.getValue() instanceof Document type && "timestamp".equals(type.get("$type"));
            set.put(field.getKey(), timestamp ? clusterTime : Instant.ofEpochMilli(now.toEpochMilli()));
        }
        Document out = new Document(update);
        out.put("$set", set);
        if (remaining.isEmpty()) {
            out.remove("$currentDate");
        } else {
            out.put("$currentDate", remaining);
        }
        return out;
    }
}
