package io.ttlstreams.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.state.ScheduleKey.Timeline;
import java.util.Arrays;
import java.util.Comparator;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.apache.kafka.common.utils.Bytes;
import org.junit.jupiter.api.Test;

/**
 * The schedule key's byte order (the store's order: RocksDB's bytewise comparator, {@link Bytes#compareTo}) must be
 * the order of (timeline, due time, document reference), negative instants included, or range scans would miss due
 * entries or return entries that are not due.
 */
class ScheduleKeyTest {

    /** A key's parts. */
    record Parts(Timeline timeline, long dueAt, Bytes ref) {

        Bytes key() {
            return ScheduleKey.of(timeline, dueAt, ref);
        }

        static final Comparator<Parts> ORDER = Comparator.comparing(Parts::timeline)
                .thenComparingLong(Parts::dueAt)
                .thenComparing(Parts::ref);
    }

    /** Times from the whole range, concentrated where order bugs hide: around 0, the extremes and byte boundaries. */
    @Provide
    Arbitrary<Long> times() {
        return Arbitraries.oneOf(
                Arbitraries.longs(),
                Arbitraries.longs().between(-1_000, 1_000),
                Arbitraries.of(
                        Long.MIN_VALUE,
                        Long.MIN_VALUE + 1,
                        -256L,
                        -255L,
                        255L,
                        256L,
                        Long.MAX_VALUE - 1,
                        Long.MAX_VALUE));
    }

    @Provide
    Arbitrary<Parts> parts() {
        return Combinators.combine(Arbitraries.of(Timeline.class), times(), Refs.refs())
                .as(Parts::new);
    }

    @Property(tries = 2000)
    void shouldOrderKeysLikeTheirParts(@ForAll("parts") Parts a, @ForAll("parts") Parts b) {
        assertThat(Integer.signum(a.key().compareTo(b.key()))).isEqualTo(Integer.signum(Parts.ORDER.compare(a, b)));
    }

    @Property
    void shouldRoundTripItsParts(@ForAll("parts") Parts parts) {
        Bytes key = parts.key();

        assertThat(ScheduleKey.timelineOf(key)).isEqualTo(parts.timeline());
        assertThat(ScheduleKey.dueAtOf(key)).isEqualTo(parts.dueAt());
        assertThat(ScheduleKey.documentRefOf(key)).isEqualTo(parts.ref());
    }

    /** A range scan [lowerBound(timeline, from), dueUpperBound(timeline, now)] holds exactly the keys due in it. */
    @Property(tries = 2000)
    void shouldBoundExactlyTheDueKeysOfOneTimeline(
            @ForAll("parts") Parts parts, @ForAll("times") long from, @ForAll("times") long now) {
        Timeline scanned = Timeline.DEADLINES;
        boolean inRange = ScheduleKey.lowerBound(scanned, from).compareTo(parts.key()) <= 0
                && parts.key().compareTo(ScheduleKey.dueUpperBound(scanned, now)) <= 0;

        assertThat(inRange).isEqualTo(parts.timeline() == scanned && from <= parts.dueAt() && parts.dueAt() <= now);
    }

    @Property
    void shouldTellWhetherItsReferenceStartsWithAPrefix(
            @ForAll("parts") Parts parts, @ForAll @IntRange(min = 1, max = 8) int length, @ForAll byte flip) {
        byte[] ref = parts.ref().get();
        // The reference's first bytes, or all of it and one more.
        byte[] prefix = Arrays.copyOf(ref, Math.min(length, ref.length + 1));
        byte[] flipped = prefix.clone();
        flipped[flipped.length - 1] ^= (byte) (flip | 1);

        assertThat(ScheduleKey.refStartsWith(parts.key(), prefix)).isEqualTo(prefix.length <= ref.length);
        assertThat(ScheduleKey.refStartsWith(parts.key(), flipped)).isFalse();
        assertThat(ScheduleKey.refStartsWith(parts.key(), new byte[0])).isTrue();
    }

    @Test
    void shouldStartWithTheFormatVersionAndTheTimeline() {
        Bytes ref = Refs.refs().sample();

        assertThat(ScheduleKey.of(Timeline.CONFIRMATIONS, 0, ref).get()).startsWith(4, 1, 0x80, 0, 0, 0, 0, 0, 0, 0);
        assertThat(ScheduleKey.of(Timeline.DEADLINES, -1, ref).get())
                .startsWith(4, 0, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF);
        assertThat(ScheduleKey.of(Timeline.HELD, 0, ref).get()).endsWith(ref.get());
    }

    @Test
    void shouldRefuseAnUnknownFormatVersionOrTimelineRatherThanMisreadIt() {
        byte[] key = ScheduleKey.of(Timeline.DEADLINES, 0, Refs.refs().sample()).get();
        byte[] otherVersion = key.clone();
        otherVersion[0] = 3;
        byte[] otherTimeline = key.clone();
        otherTimeline[1] = 7;

        assertThatThrownBy(() -> ScheduleKey.dueAtOf(Bytes.wrap(otherVersion)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("format version 4")
                .hasMessageContaining("version 3")
                .hasMessageContaining("Reset the application's state");
        assertThatThrownBy(() -> ScheduleKey.timelineOf(Bytes.wrap(otherTimeline)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeline 7");
        assertThatThrownBy(() -> ScheduleKey.documentRefOf(Bytes.wrap(new byte[5])))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("header");
    }

    @Property
    void shouldRefuseEveryOtherFormatVersionAdvisingAReset(
            @ForAll("parts") Parts parts, @ForAll @IntRange(min = 0, max = 255) int version) {
        byte[] key = parts.key().get();
        key[0] = (byte) version;

        if (version == ScheduleKey.FORMAT_VERSION) {
            assertThat(ScheduleKey.documentRefOf(Bytes.wrap(key))).isEqualTo(parts.ref());
        } else {
            assertThatThrownBy(() -> ScheduleKey.timelineOf(Bytes.wrap(key)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("format version 4: version " + version)
                    .hasMessageContaining("Reset the application's state");
        }
    }

    @Test
    void shouldRefuseAnEmptyReference() {
        assertThatThrownBy(() -> ScheduleKey.of(Timeline.DEADLINES, 0, Bytes.wrap(new byte[0])))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
