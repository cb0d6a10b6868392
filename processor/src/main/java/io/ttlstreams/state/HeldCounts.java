package io.ttlstreams.state;

import io.ttlstreams.schema.HeldCount;
import io.ttlstreams.schema.TaskRecord;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * What each rule holds for approval in a task: its entries on the {@link ScheduleKey.Timeline#AWAITING_APPROVAL}
 * timeline, counted with bounds of their deadlines, as records of the task's {@code task} store (key {@link TaskKeys#HELD},
 * then the rule's name in UTF-8; value a {@link TaskRecord} with its {@link HeldCount}). The {@link ExpirySchedule}
 * updates them as entries enter and leave that timeline, in the same transaction as the entries, so a restore restores
 * them with the entries they count. The earliest and latest deadline are bounds: kept as an entry leaves unless it was
 * the last, when the record goes.
 */
final class HeldCounts {

    private final KeyValueStore<Bytes, TaskRecord> task;

    HeldCounts(KeyValueStore<Bytes, TaskRecord> task) {
        this.task = task;
    }

    /** The entries of {@code rule} held now. */
    long count(String rule) {
        HeldCount held = get(task, rule);
        return held == null ? 0 : held.getCount();
    }

    /** One more entry of {@code rule} held, with this deadline. */
    void added(String rule, long deadline) {
        HeldCount held = get(task, rule);
        Instant at = Instant.ofEpochMilli(deadline);
        if (held == null) {
            held = new HeldCount(0L, at, at);
        }
        if (at.isBefore(held.getEarliest())) {
            held.setEarliest(at);
        }
        if (at.isAfter(held.getLatest())) {
            held.setLatest(at);
        }
        held.setCount(held.getCount() + 1);
        task.put(key(rule), new TaskRecord(null, held));
    }

    /** One entry of {@code rule} held no longer. */
    void removed(String rule) {
        HeldCount held = get(task, rule);
        if (held == null) {
            return;
        }
        if (held.getCount() <= 1) {
            task.delete(key(rule));
            return;
        }
        held.setCount(held.getCount() - 1);
        task.put(key(rule), new TaskRecord(null, held));
    }

    /**
     * Every rule's holds in {@code store}, by rule name: once per rule in a task's store, once per task that holds
     * entries of the rule in a store over several partitions.
     */
    static List<KeyValue<String, HeldCount>> all(ReadOnlyKeyValueStore<Bytes, TaskRecord> store) {
        List<KeyValue<String, HeldCount>> all = new ArrayList<>();
        TaskKeys.forEach(store, TaskKeys.HELD, (rule, record) -> {
            if (record.getHeld() == null) {
                throw new IllegalArgumentException(
                        "A record of held entries without its counts (" + DocumentRef.RESET_ADVICE + ")");
            }
            all.add(KeyValue.pair(new String(rule, StandardCharsets.UTF_8), record.getHeld()));
        });
        return all;
    }

    private static HeldCount get(ReadOnlyKeyValueStore<Bytes, TaskRecord> store, String rule) {
        TaskRecord record = store.get(key(rule));
        return record == null ? null : record.getHeld();
    }

    private static Bytes key(String rule) {
        return TaskKeys.key(TaskKeys.HELD, rule.getBytes(StandardCharsets.UTF_8));
    }
}
