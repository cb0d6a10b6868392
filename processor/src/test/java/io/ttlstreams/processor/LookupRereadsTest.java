package io.ttlstreams.processor;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.readback.DocumentReadBack;
import io.ttlstreams.readback.MapDocumentReader;
import io.ttlstreams.readback.ReadResult;
import io.ttlstreams.state.DocumentRef;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.utils.Bytes;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.Test;

/** The reads asked for updates whose lookup missed their document: bounded per task, and only the latest applies. */
class LookupRereadsTest {

    private static final Namespace SESSIONS = Namespace.parse("app.sessions");
    private static final Bytes PREFIX = DocumentRef.collectionPrefix(0, 0);

    private final MeterRegistry meters = new SimpleMeterRegistry();
    private final MapDocumentReader mongo = new MapDocumentReader();
    // Room for 20 × 100 requests: more than a task may have waiting.
    private final DocumentReadBack readBack = new DocumentReadBack(mongo, 100, 1_000);

    private static Bytes ref(int id) {
        return DocumentRef.of(PREFIX, new BsonDocument("_id", new BsonInt32(id)));
    }

    private LookupRereads rereads(Optional<DocumentReadBack> reader) {
        return new LookupRereads(reader, TtlMetrics.forTask(meters, "0_0"));
    }

    private double counted(String name) {
        return meters.get(TtlMetrics.meterName(name)).counter().count();
    }

    @Test
    void shouldCountAndRefuseAReadWhenTheTaskHasTooManyWaiting() {
        LookupRereads rereads = rereads(Optional.of(readBack));
        for (int id = 0; id < LookupRereads.MAX_PENDING; id++) {
            assertThat(rereads.ask(ref(id), SESSIONS)).isTrue();
        }

        assertThat(rereads.ask(ref(LookupRereads.MAX_PENDING), SESSIONS)).isFalse();
        assertThat(rereads.ask(ref(0), SESSIONS))
                .as("a document already waiting is asked again")
                .isTrue();
        assertThat(counted(TtlMetrics.LOOKUP_REREADS)).isEqualTo(LookupRereads.MAX_PENDING + 1);
        assertThat(counted(TtlMetrics.LOOKUP_REREADS_DROPPED)).isEqualTo(1);
    }

    @Test
    void shouldApplyOnlyTheLatestReadWhenADocumentWasAskedTwice() {
        LookupRereads rereads = rereads(Optional.of(readBack));
        rereads.ask(ref(1), SESSIONS);
        rereads.ask(ref(1), SESSIONS);
        readBack.readQueued();

        List<ReadResult> applied = new ArrayList<>();
        rereads.answers(applied::add);
        assertThat(applied).hasSize(1);
    }

    @Test
    void shouldReadNothingWhenThereIsNoMongoDbToRead() {
        LookupRereads rereads = rereads(Optional.empty());

        assertThat(rereads.ask(ref(1), SESSIONS)).isFalse();
        assertThat(mongo.lookUps()).isEmpty();
        assertThat(counted(TtlMetrics.LOOKUP_REREADS)).isZero();
    }
}
