package io.ttlstreams.resync;

import io.ttlstreams.contract.Namespace;
import io.ttlstreams.rules.ConfigValues;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.bson.BsonValue;

/**
 * The collection UUIDs of the rules' namespaces from one check to the next, and which namespaces were rewritten in
 * between: a collection keeps its UUID for its whole life, through every insert, update and delete, and gets a new
 * one only when it is replaced (the temporary collection of {@code $out} renamed over it, any
 * {@code renameCollection} into it) or dropped and created again ({@code drop}, {@code dropDatabase}). Those are
 * exactly the changes the processor cannot follow from the change stream alone: a rename into a watched collection is
 * reported under the source collection's namespace, and a drop invalidates the stream, which mongo-kafka 2.0.1 then
 * restarts without its resume token, from the present.
 *
 * <p>The first check is the baseline: nothing is rewritten before it. A namespace that is gone at a check (dropped)
 * is forgotten, so that it counts as {@link Reason#CREATED} when it is back.
 *
 * <p>Not thread-safe: one checker.
 */
final class CollectionIdentities {

    /** Why a namespace needs a resync, as the metric's tag and the log line say it. */
    enum Reason {
        /** Present at both checks, under another UUID: replaced, or dropped and re-created in between. */
        REPLACED("its collection UUID changed: replaced by $out, renamed into, or dropped and re-created"),
        /** Absent at the last check, present now: re-created after a drop or dropDatabase, or created by a rename. */
        CREATED("its collection appeared since the last check: re-created after a drop or dropDatabase, or the target"
                + " of $out or a rename");

        private final String why;

        Reason(String why) {
            this.why = why;
        }

        /** The metric's tag value: "replaced", "created". */
        String tag() {
            return ConfigValues.spelling(this);
        }

        /** Why a resync runs, for its log line. */
        String why() {
            return why;
        }
    }

    /**
     * One namespace whose collection was rewritten between two checks.
     *
     * @param before its UUID at the last check; null when it was absent
     * @param after its UUID now
     */
    record Rewrite(Namespace namespace, Reason reason, BsonValue before, BsonValue after) {}

    private Map<Namespace, BsonValue> last;

    /**
     * Compares one check's collections with the last check's.
     *
     * @param present each covered namespace that exists now, with its collection UUID
     * @return the namespaces rewritten since the last check, in {@code present}'s order; none at the first check
     */
    List<Rewrite> observe(Map<Namespace, BsonValue> present) {
        Objects.requireNonNull(present, "present");
        List<Rewrite> rewrites = new ArrayList<>();
        if (last != null) {
            present.forEach((namespace, uuid) -> {
                BsonValue before = last.get(namespace);
                if (before == null) {
                    rewrites.add(new Rewrite(namespace, Reason.CREATED, null, uuid));
                } else if (!before.equals(uuid)) {
                    rewrites.add(new Rewrite(namespace, Reason.REPLACED, before, uuid));
                }
            });
        }
        last = new LinkedHashMap<>(present);
        return rewrites;
    }
}
