package io.ttlstreams.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.contract.Namespace;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ScheduleKeyTest {

    private static final long NOW = 1_795_975_792_000L;
    private static final long[] EDGE_DEADLINES = {
        Long.MIN_VALUE,
        Long.MIN_VALUE + 1,
        -86_400_000L,
        -256,
        -255,
        -1,
        0,
        1,
        255,
        256,
        NOW,
        Long.MAX_VALUE - 1,
        Long.MAX_VALUE
    };

    @TempDir
    Path stateDir;

    private static Bytes ref(String id) {
        return DocumentRef.of(Namespace.parse("app.sessions"), "{\"_id\": \"" + id + "\"}");
    }

    @Test
    void shouldEncodeDeadlineBigEndianWithSignBitFlipped() {
        assertThat(ScheduleKey.of(0, ref("a")).get()).startsWith(0x80, 0, 0, 0, 0, 0, 0, 0);
        assertThat(ScheduleKey.of(-1, ref("a")).get()).startsWith(0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF);
        assertThat(ScheduleKey.of(0x0102, ref("a")).get()).startsWith(0x80, 0, 0, 0, 0, 0, 0x01, 0x02);
        assertThat(ScheduleKey.lowest().get()).containsExactly(0, 0, 0, 0, 0, 0, 0, 0);
        assertThat(ScheduleKey.dueUpperBound(-1).get()).containsExactly(0x80, 0, 0, 0, 0, 0, 0, 0);
        assertThat(ScheduleKey.of(0, ref("a")).get()).endsWith(ref("a").get());
    }

    @Test
    void shouldOrderNegativeZeroAndFarFutureDeadlinesNumerically() {
        List<Bytes> keys = new ArrayList<>();
        for (int i = EDGE_DEADLINES.length - 1; i >= 0; i--) {
            keys.add(ScheduleKey.of(EDGE_DEADLINES[i], ref("a")));
        }

        keys.sort(Comparator.naturalOrder());

        assertThat(keys.stream().mapToLong(ScheduleKey::deadlineOf).toArray()).containsExactly(EDGE_DEADLINES);
    }

    @Test
    void shouldOrderEqualDeadlinesByRefAndKeepThemDistinct() {
        Bytes a = ScheduleKey.of(NOW, ref("a"));
        Bytes b = ScheduleKey.of(NOW, ref("b"));

        assertThat(a).isNotEqualTo(b);
        assertThat(a.compareTo(b)).isNegative();
        assertThat(a.compareTo(ScheduleKey.of(NOW + 1, ref("0")))).isNegative();
        assertThat(b.compareTo(ScheduleKey.of(NOW - 1, ref("z")))).isPositive();
    }

    @Test
    void shouldOrderBytesLikeNumbersForRandomDeadlines() {
        Random random = new Random(20261129L);
        for (int i = 0; i < 100_000; i++) {
            long first = pick(random);
            long second = pick(random);
            Bytes firstKey = ScheduleKey.of(first, ref(Integer.toString(random.nextInt(3))));
            Bytes secondKey = ScheduleKey.of(second, ref(Integer.toString(random.nextInt(3))));

            if (first != second) {
                assertThat(Integer.signum(firstKey.compareTo(secondKey)))
                        .as("%d vs %d", first, second)
                        .isEqualTo(Long.signum(Long.compare(first, second)));
            }
            assertThat(Integer.signum(ScheduleKey.dueUpperBound(first).compareTo(secondKey)))
                    .as("bound of %d vs %d", first, second)
                    .isEqualTo(first >= second ? 1 : -1);
            assertThat(ScheduleKey.deadlineOf(firstKey)).isEqualTo(first);
        }
    }

    /** Mostly uniform longs, which are huge, plus small values and edges where sign handling would break. */
    private static long pick(Random random) {
        return switch (random.nextInt(4)) {
            case 0 -> random.nextLong();
            case 1 -> random.nextInt(2001) - 1000L;
            case 2 -> EDGE_DEADLINES[random.nextInt(EDGE_DEADLINES.length)] + random.nextInt(3) - 1;
            default -> NOW + random.nextInt(2001) - 1000L;
        };
    }

    @Test
    void shouldRoundTripDeadlineAndDocumentRef() {
        for (long deadline : EDGE_DEADLINES) {
            Bytes ref = DocumentRef.of(Namespace.parse("café.ß"), "{\"_id\": {\"$numberLong\": \"" + deadline + "\"}}");
            Bytes key = ScheduleKey.of(deadline, ref);

            assertThat(ScheduleKey.deadlineOf(key)).isEqualTo(deadline);
            assertThat(ScheduleKey.documentRefOf(key)).isEqualTo(ref);
            assertThat(DocumentRef.namespaceOf(ScheduleKey.documentRefOf(key))).isEqualTo(Namespace.parse("café.ß"));
        }
    }

    @Test
    void shouldBoundLongMaxValueAboveEveryEntry() {
        Bytes bound = ScheduleKey.dueUpperBound(Long.MAX_VALUE);

        // The highest first bytes UTF-8 text can have: U+FFFF (EF BF BF) and supplementary characters (F4 ...).
        for (String namespace : new String[] {"\uFFFF.x", "\uDBFF\uDFFF.x", "z.z"}) {
            assertThat(bound.compareTo(
                            ScheduleKey.of(Long.MAX_VALUE, DocumentRef.of(Namespace.parse(namespace), "{}"))))
                    .isPositive();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"in-memory", "rocksdb"})
    void shouldRangeExactlyOverDueEntries(String storeType) {
        StoreBuilder<KeyValueStore<Bytes, Long>> builder = Stores.keyValueStoreBuilder(
                storeType.equals("rocksdb") ? Stores.persistentKeyValueStore("s") : Stores.inMemoryKeyValueStore("s"),
                Serdes.Bytes(),
                Serdes.Long());
        try (StoreHarness harness = new StoreHarness(stateDir, builder)) {
            KeyValueStore<Bytes, Long> store = harness.store("s");
            long[] deadlines = {
                Long.MIN_VALUE, -5_000, -1, 0, NOW - 1_000, NOW - 1, NOW, NOW + 1, NOW + 1_000, Long.MAX_VALUE
            };
            for (long deadline : deadlines) {
                store.put(ScheduleKey.of(deadline, ref("a")), deadline);
                store.put(ScheduleKey.of(deadline, ref("b")), deadline);
            }

            assertThat(due(store, NOW))
                    .containsExactly(
                            Long.MIN_VALUE,
                            Long.MIN_VALUE,
                            -5_000L,
                            -5_000L,
                            -1L,
                            -1L,
                            0L,
                            0L,
                            NOW - 1_000,
                            NOW - 1_000,
                            NOW - 1,
                            NOW - 1,
                            NOW,
                            NOW);
            assertThat(due(store, -1)).containsExactly(Long.MIN_VALUE, Long.MIN_VALUE, -5_000L, -5_000L, -1L, -1L);
            assertThat(due(store, Long.MIN_VALUE)).containsExactly(Long.MIN_VALUE, Long.MIN_VALUE);
            assertThat(due(store, Long.MAX_VALUE)).hasSize(2 * deadlines.length);
        }
    }

    private static List<Long> due(KeyValueStore<Bytes, Long> store, long now) {
        List<Long> deadlines = new ArrayList<>();
        try (KeyValueIterator<Bytes, Long> due = store.range(ScheduleKey.lowest(), ScheduleKey.dueUpperBound(now))) {
            due.forEachRemaining(entry -> {
                assertThat(ScheduleKey.deadlineOf(entry.key)).isEqualTo(entry.value);
                deadlines.add(entry.value);
            });
        }
        return deadlines;
    }

    @Test
    void shouldRejectEmptyDocumentRef() {
        assertThatThrownBy(() -> ScheduleKey.of(0, Bytes.wrap(new byte[0])))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldRejectKeysShorterThanTheDeadline() {
        Bytes tooShort = Bytes.wrap(Arrays.copyOf(ScheduleKey.lowest().get(), 7));

        assertThatThrownBy(() -> ScheduleKey.deadlineOf(tooShort))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("7 bytes");
        assertThatThrownBy(() -> ScheduleKey.documentRefOf(tooShort)).isInstanceOf(IllegalArgumentException.class);
    }
}
