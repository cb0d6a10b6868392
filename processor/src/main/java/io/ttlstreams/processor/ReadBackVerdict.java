package io.ttlstreams.processor;

import io.ttlstreams.readback.ReadResult;
import io.ttlstreams.rules.ExpiryDecision;
import io.ttlstreams.rules.TtlRules;
import io.ttlstreams.schema.ScheduleEntry;
import java.time.Instant;
import java.util.Objects;

/**
 * What a document read back from MongoDB says about the entry whose delete command went unconfirmed. The rules are
 * evaluated on the document as read; the entry's own values are a claim of the event that set it, the read is the
 * ground truth.
 *
 * <ul>
 *   <li>{@link Kind#GONE}: no such document. The delete happened (its event was lost, or is still on its way) or
 *       there was never anything to delete: confirmed.
 *   <li>{@link Kind#SAME}: the rules give the document the entry's rule and condition, so its command is the same: it
 *       goes out again as without read-back (the sink has not applied it yet). A last-modified rule without {@code
 *       modified.field} pins nothing a renewal changes, so a renewed document lands here too: the read cannot tell,
 *       and the outcome is exactly today's retry, never an earlier delete.
 *   <li>{@link Kind#MOVED}: the document holds other values (renewed while its event was lost, or the entry's values
 *       were never the document's): it is given the deadline its values give, which may be due at once, and then is
 *       due on arrival for the blast-radius guard. A
 *       last-modified rule counts from the time the read was applied, which is after the change it saw.
 *   <li>{@link Kind#NOT_EXPIRING}: the document no longer expires by any rule: its entry goes.
 *   <li>{@link Kind#FAILED}: MongoDB could not be read: the command goes out again as without read-back.
 * </ul>
 *
 * @param kind the verdict
 * @param entry the entry the document's values give; null unless {@link Kind#MOVED}
 * @param deadline that entry's deadline, epoch milliseconds; 0 unless {@link Kind#MOVED}
 */
record ReadBackVerdict(Kind kind, ScheduleEntry entry, long deadline) {

    /** The possible verdicts; see the type's comment. */
    enum Kind {
        GONE,
        SAME,
        MOVED,
        NOT_EXPIRING,
        FAILED
    }

    private static final ReadBackVerdict GONE = new ReadBackVerdict(Kind.GONE, null, 0);
    private static final ReadBackVerdict SAME = new ReadBackVerdict(Kind.SAME, null, 0);
    private static final ReadBackVerdict NOT_EXPIRING = new ReadBackVerdict(Kind.NOT_EXPIRING, null, 0);
    /** The verdict of a read that told nothing. */
    static final ReadBackVerdict FAILED = new ReadBackVerdict(Kind.FAILED, null, 0);

    /**
     * The verdict on {@code entry} from {@code result}, read for it.
     *
     * @param appliedAt when the answer is applied: a last-modified rule counts from it, which is never before the
     *     change the read saw
     */
    static ReadBackVerdict of(ReadResult result, ScheduleEntry entry, TtlRules rules, Instant appliedAt) {
        Objects.requireNonNull(entry, "entry");
        switch (result.kind()) {
            case ABSENT -> {
                return GONE;
            }
            case FAILED -> {
                return FAILED;
            }
            default -> {
                ExpiryDecision decision = rules.evaluate(result.request().namespace(), result.document(), appliedAt);
                if (!decision.expires()) {
                    return NOT_EXPIRING;
                }
                ScheduleEntry read =
                        ScheduleEntries.of(decision, rules.rule(decision.rule()).orElseThrow());
                // The document read back is the one the entry names: its shard key as the entry keeps it.
                read.setDocumentKey(entry.getDocumentKey());
                if (ScheduleEntries.sameCommand(entry, read)) {
                    return SAME;
                }
                return new ReadBackVerdict(Kind.MOVED, read, decision.deadline().toEpochMilli());
            }
        }
    }
}
