package io.ttlstreams.readback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ttlstreams.contract.Namespace;
import io.ttlstreams.readback.MapDocumentReader.LookUp;
import io.ttlstreams.readback.ReadResult.Kind;
import io.ttlstreams.state.DocumentRef;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The read-back service: batching per namespace, its answers, its bounds, its thread. */
class DocumentReadBackTest {

    private static final Namespace SESSIONS = Namespace.parse("app.sessions");
    private static final Namespace TOKENS = Namespace.parse("app.tokens");

    private final MapDocumentReader mongo = new MapDocumentReader();
    private final ReadBackInbox inbox = new ReadBackInbox();

    private ReadRequest request(Namespace namespace, BsonValue id) {
        return new ReadRequest(
                DocumentRef.of(DocumentRef.collectionPrefix(0, 0), new BsonDocument("_id", id)),
                namespace,
                0,
                1,
                inbox);
    }

    private static BsonString id(int i) {
        return new BsonString("d" + i);
    }

    private Map<BsonValue, ReadResult> answers() {
        Map<BsonValue, ReadResult> answers = new HashMap<>();
        for (ReadResult result = inbox.poll(); result != null; result = inbox.poll()) {
            answers.put(result.request().id(), result);
        }
        return answers;
    }

    @Test
    void shouldLookUpEachNamespaceInBatchesOfAtMostTheBatchSize() {
        DocumentReadBack readBack = new DocumentReadBack(mongo, 2, 1_000);
        for (int i = 0; i < 5; i++) {
            assertThat(readBack.submit(request(i % 2 == 0 ? SESSIONS : TOKENS, id(i))))
                    .isTrue();
        }
        mongo.put(SESSIONS, new BsonDocument("_id", id(0))).put(TOKENS, new BsonDocument("_id", id(3)));

        assertThat(readBack.readQueued()).isEqualTo(3);

        assertThat(mongo.lookUps())
                .containsExactly(
                        new LookUp(SESSIONS, List.of(id(0), id(2))),
                        new LookUp(SESSIONS, List.of(id(4))),
                        new LookUp(TOKENS, List.of(id(1), id(3))));
        Map<BsonValue, ReadResult> answers = answers();
        assertThat(answers).hasSize(5);
        assertThat(answers.get(id(0)).kind()).isEqualTo(Kind.PRESENT);
        assertThat(answers.get(id(0)).document()).isEqualTo(new BsonDocument("_id", id(0)));
        assertThat(answers.get(id(3)).kind()).isEqualTo(Kind.PRESENT);
        assertThat(answers.get(id(1)).kind()).isEqualTo(Kind.ABSENT);
        assertThat(answers.get(id(2)).kind()).isEqualTo(Kind.ABSENT);
        assertThat(answers.get(id(4)).kind()).isEqualTo(Kind.ABSENT);
    }

    @Test
    void shouldAnswerFailedForTheIdsOfALookUpThatFailedOnly() {
        DocumentReader flaky = new DocumentReader() {
            @Override
            public List<BsonDocument> read(Namespace namespace, List<BsonValue> ids) {
                if (namespace.equals(TOKENS)) {
                    throw new IllegalStateException("not authorized on app.tokens (test)");
                }
                return mongo.read(namespace, ids);
            }
        };
        DocumentReadBack readBack = new DocumentReadBack(flaky, 10, 1_000);
        readBack.submit(request(SESSIONS, id(0)));
        readBack.submit(request(TOKENS, id(1)));

        readBack.readQueued();

        Map<BsonValue, ReadResult> answers = answers();
        assertThat(answers.get(id(0)).kind()).isEqualTo(Kind.ABSENT);
        assertThat(answers.get(id(1)).kind()).isEqualTo(Kind.FAILED);
    }

    @Test
    void shouldNotClaimAbsenceWhenTheAnswerHoldsADocumentNoIdAskedForEquals() {
        // MongoDB matches 1 (int) for 1L (long): the answer's _id equals nothing asked, so nothing is known.
        DocumentReadBack readBack =
                new DocumentReadBack((namespace, ids) -> List.of(new BsonDocument("_id", new BsonInt32(1))), 10, 1_000);
        readBack.submit(request(SESSIONS, new BsonInt64(1)));

        readBack.readQueued();

        assertThat(answers().get(new BsonInt64(1)).kind()).isEqualTo(Kind.FAILED);
    }

    @Test
    void shouldRefuseRequestsBeyondItsQueueAndSkipThoseOfAClosedInbox() {
        DocumentReadBack readBack = new DocumentReadBack(mongo, 1, 1_000);
        List<Boolean> accepted = new ArrayList<>();
        IntStream.range(0, DocumentReadBack.QUEUED_BATCHES + 1)
                .forEach(i -> accepted.add(readBack.submit(request(SESSIONS, id(i)))));
        assertThat(accepted.subList(0, DocumentReadBack.QUEUED_BATCHES)).containsOnly(true);
        assertThat(accepted.get(DocumentReadBack.QUEUED_BATCHES)).isFalse();

        inbox.close();
        assertThat(readBack.readQueued())
                .as("nothing read for a task that went")
                .isZero();
        assertThat(inbox.poll()).isNull();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void shouldReadOnItsOwnThreadOnceStarted() {
        mongo.put(SESSIONS, new BsonDocument("_id", id(7)));
        try (DocumentReadBack readBack = new DocumentReadBack(mongo, 10, 1_000).start()) {
            readBack.submit(request(SESSIONS, id(7)));
            ReadResult[] answer = new ReadResult[1];
            await().atMost(Duration.ofSeconds(20)).until(() -> (answer[0] = inbox.poll()) != null);
            assertThat(answer[0].kind()).isEqualTo(Kind.PRESENT);
        }
    }

    @Test
    void shouldSpaceLookUpsByTheRateBoundWhenTheyComeFasterThanIt() throws InterruptedException {
        long[] clock = {1_000};
        List<Long> sleeps = new ArrayList<>();
        DocumentReadBack.Pace pace = new DocumentReadBack.Pace(4, () -> clock[0], nanos -> {
            sleeps.add(nanos);
            clock[0] += nanos;
        });
        pace.await();
        pace.await();
        clock[0] += 100_000_000L;
        pace.await();
        clock[0] += 1_000_000_000L;
        pace.await();

        assertThat(sleeps)
                .as("a quarter second between look-ups, less what already passed; none after a pause")
                .containsExactly(250_000_000L, 150_000_000L);
    }
}
