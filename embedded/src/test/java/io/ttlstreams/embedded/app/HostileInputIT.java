package io.ttlstreams.embedded.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.model.Filters;
import io.ttlstreams.config.OperationsOptions;
import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.embedded.TopicReader;
import io.ttlstreams.processor.DeadLetters;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.bson.Document;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 23 on a live embedded pipeline: what an attacker with the processor's HTTP port, write access to one source
 * topic, or plain write access to a MongoDB collection used to do to expiry, done again. Each attack is refused or
 * dead-lettered, and canary documents of every namespace are deleted on time meanwhile. The figures the issue asks for
 * (answer times, heap, probe latencies) are printed, not asserted: the machine is shared.
 */
@Tag("integration")
class HostileInputIT {

    private static final Duration WITHIN = Duration.ofSeconds(2);
    private static final Namespace SESSIONS = Namespace.parse("app.sessions");
    private static final Namespace EVENTS = Namespace.parse("app.events");
    /** How long the half-sent requests are held: {@code -Dhostile.hold.seconds=60} for the measurement. */
    private static final Duration HOLD = Duration.ofSeconds(Long.getLong("hostile.hold.seconds", 15));

    @RegisterExtension
    static final EmbeddedPipelineExtension PIPELINE = EmbeddedPipelineExtension.with(TestConfigs.settings(
                    "ttl.rules", "sessions,events",
                    "ttl.rule.events.namespace", EVENTS.toString(),
                    "ttl.rule.events.field", "expireAt"))
            .and("ttl.http.request.timeout.ms", "3000");

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void shouldDeadLetterForgedAndOversizedRecordsAndKeepExpiringEveryNamespace() throws Exception {
        Instant deadline = Instant.now().plusSeconds(6);
        List<String> canaries = insertCanaries(deadline, "records");
        TtlStreamsConfig config = PIPELINE.pipeline().processorConfig();
        // The forged drop of finding 4: on the events' topic, naming the sessions, at the last clusterTime there is.
        String forgedDrop = "{\"operationType\": \"drop\", \"ns\": {\"db\": \"app\", \"coll\": \"sessions\"},"
                + " \"clusterTime\": {\"$timestamp\": {\"t\": 4294967295, \"i\": 1}}}";
        // Finding 6: a forged insert whose _id is 600 kB, whose delete command the producer could never send.
        String hugeKey = "{\"_id\": \"" + "k".repeat(600_000) + "\"}";
        String forgedInsert = "{\"operationType\": \"insert\", \"ns\": {\"db\": \"app\", \"coll\": \"sessions\"},"
                + " \"documentKey\": " + hugeKey + ", \"fullDocument\": {\"_id\": \"small\","
                + " \"expireAt\": {\"$date\": \"2020-01-01T00:00:00Z\"}}}";
        try (KafkaProducer<String, String> producer = producer()) {
            producer.send(new ProducerRecord<>(topicOf(config, EVENTS), null, forgedDrop))
                    .get();
            producer.send(new ProducerRecord<>(topicOf(config, SESSIONS), "{\"_id\": \"small\"}", forgedInsert))
                    .get();
        }
        // Finding 8: a document MongoDB accepts whose change event is larger than the source connector may produce.
        String hugeId = "h".repeat(400_000);
        PIPELINE.collection(SESSIONS).insertOne(new Document("_id", hugeId).append("expireAt", Date.from(deadline)));

        try (TopicReader dlq = new TopicReader(PIPELINE.pipeline().stack().bootstrapServers(), config.dlqTopic())) {
            await("both forged records dead-lettered")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> dlq.poll(r -> true).size() >= 2);
            assertThat(dlq.poll(r -> true))
                    .extracting(HostileInputIT::error)
                    .anySatisfy(error -> assertThat(error).contains("'app.sessions'", "'app.events'"))
                    .anySatisfy(error -> assertThat(error).contains(OperationsOptions.DOCUMENT_KEY_MAX_BYTES_CONFIG));
        }
        assertCanariesExpireOnTime(canaries, deadline);
        assertThat(PIPELINE.collection(SESSIONS).countDocuments(Filters.eq("_id", hugeId)))
                .as("the 400 kB _id document's event never reached the processor, so it is not deleted")
                .isEqualTo(1);
        assertThat(PIPELINE.pipeline()
                        .stack()
                        .connect()
                        .status(ConnectorConfigs.SOURCE_NAME + "-" + SESSIONS.database())
                        .isRunning())
                .as("the source connector of app.sessions and its task are RUNNING")
                .isTrue();
    }

    @Test
    void shouldAnswerOversizedQueriesAndProbesUnderAttackAndKeepExpiring() throws Exception {
        URI base = PIPELINE.pipeline().processor().httpUrl();
        // The canaries come due while the attack goes on, and are watched from this thread meanwhile.
        Instant deadline = Instant.now().plus(HOLD.dividedBy(2)).plusSeconds(4);
        List<String> canaries = insertCanaries(deadline, "http");
        CompletableFuture<List<String>> attack = CompletableFuture.supplyAsync(() -> attack(base));

        assertCanariesExpireOnTime(canaries, deadline);

        List<String> failures = attack.get(HOLD.toSeconds() + 120, TimeUnit.SECONDS);
        assertThat(failures)
                .as("answers other than 400 to oversized queries, or than 200 to probes")
                .isEmpty();
    }

    /** How much larger the heap may be after a round of oversized queries than before it, after a GC. */
    private static final long HEAP_GROWTH_BOUND = 64L << 20;

    /**
     * Three rounds of four concurrent oversized schedule queries, then eight half-sent requests held for {@link
     * #HOLD} (renewed whenever the server closes one) while liveness is probed. Returns what went wrong; prints the
     * figures.
     */
    private List<String> attack(URI base) {
        List<String> failures = new ArrayList<>();
        String oversized = "/v1/schedule?from=-150000000-01-01T00:00:00Z&to=%2B150000000-01-01T00:00:00Z&bucket=1d";
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        List<Socket> halfSent = new ArrayList<>();
        try {
            for (int round = 1; round <= 3; round++) {
                System.gc();
                long heapBefore = memory.getHeapMemoryUsage().getUsed();
                long started = System.nanoTime();
                List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    answers.add(http.sendAsync(request(base, oversized), HttpResponse.BodyHandlers.ofString()));
                }
                List<Integer> statuses = new ArrayList<>();
                for (CompletableFuture<HttpResponse<String>> answer : answers) {
                    statuses.add(answer.get().statusCode());
                }
                long elapsedMillis = (System.nanoTime() - started) / 1_000_000;
                System.gc();
                long heapAfter = memory.getHeapMemoryUsage().getUsed();
                System.out.printf(
                        "hostile-input: round %d: 4 concurrent oversized /v1/schedule answered %s in %d ms; heap used"
                                + " %d MiB before, %d MiB after%n",
                        round, statuses, elapsedMillis, heapBefore >> 20, heapAfter >> 20);
                // Refused before anything is built: four oversized queries leave no more than noise on the heap.
                if (heapAfter - heapBefore > HEAP_GROWTH_BOUND) {
                    failures.add("4 oversized queries left the heap " + ((heapAfter - heapBefore) >> 20)
                            + " MiB larger, more than " + (HEAP_GROWTH_BOUND >> 20) + " MiB");
                }
                statuses.stream()
                        .filter(status -> status != 400)
                        .forEach(status -> failures.add("oversized query answered " + status));
            }
            long probes = 0;
            long slowestMillis = 0;
            Instant until = Instant.now().plus(HOLD);
            while (Instant.now().isBefore(until)) {
                halfSent.removeIf(Socket::isClosed);
                while (halfSent.size() < 8) {
                    halfSent.add(halfSend(base));
                }
                long started = System.nanoTime();
                HttpResponse<String> live =
                        http.send(request(base, "/health/live"), HttpResponse.BodyHandlers.ofString());
                slowestMillis = Math.max(slowestMillis, (System.nanoTime() - started) / 1_000_000);
                probes++;
                if (live.statusCode() != 200) {
                    failures.add("liveness answered " + live.statusCode());
                }
                // The attack's rhythm, not a wait for a condition: a probe every 250 ms while the half-sent
                // requests are held, which is what is tested.
                Thread.sleep(250);
                closeAnswered(halfSent);
            }
            System.out.printf(
                    "hostile-input: %d liveness probes over %d s with 8 half-sent requests held: %d not 200, slowest"
                            + " %d ms%n",
                    probes, HOLD.toSeconds(), failures.size(), slowestMillis);
            // Each probe waits 250 ms after its answer, and the client gives up after 5 s: at least one probe per
            // 5.25 s of the hold was answered in time, or a failure is on the list already.
            if (probes < HOLD.toMillis() / 5_250) {
                failures.add("only " + probes + " liveness probes in " + HOLD.toSeconds() + " s");
            }
        } catch (IOException | ExecutionException e) {
            failures.add("the attack itself failed: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failures.add("interrupted");
        } finally {
            for (Socket socket : halfSent) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // Closing an attacker's socket: nothing to do.
                }
            }
        }
        return failures;
    }

    /** A canary in each namespace, due at {@code deadline}. */
    private static List<String> insertCanaries(Instant deadline, String name) {
        List<String> ids = new ArrayList<>();
        for (Namespace namespace : List.of(SESSIONS, EVENTS)) {
            for (int i = 0; i < 4; i++) {
                String id = name + "-" + namespace.collection() + "-" + i;
                PIPELINE.collection(namespace)
                        .insertOne(new Document("_id", id).append("expireAt", Date.from(deadline)));
                ids.add(id);
            }
        }
        return ids;
    }

    private static void assertCanariesExpireOnTime(List<String> ids, Instant deadline) {
        for (Namespace namespace : List.of(SESSIONS, EVENTS)) {
            List<String> own = ids.stream()
                    .filter(id -> id.contains("-" + namespace.collection() + "-"))
                    .toList();
            ExpiryProbe.assertExpireOnTime(PIPELINE.collection(namespace), own, deadline, WITHIN);
        }
    }

    /** A connection that sends a request line and one header, and never the blank line that ends the head. */
    private static Socket halfSend(URI base) throws IOException {
        Socket socket = new Socket(base.getHost(), base.getPort());
        socket.setSoTimeout(1);
        OutputStream out = socket.getOutputStream();
        out.write("GET /health/live HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return socket;
    }

    /** Closes the half-sent connections the server has closed (it timed their head out): the attacker reconnects. */
    private static void closeAnswered(List<Socket> sockets) throws IOException {
        for (Socket socket : sockets) {
            try {
                if (socket.getInputStream().read() < 0) {
                    socket.close();
                }
            } catch (java.net.SocketTimeoutException stillOpen) {
                // Still held by the server: the attack goes on.
            } catch (IOException reset) {
                socket.close();
            }
        }
    }

    private static HttpRequest request(URI base, String path) {
        return HttpRequest.newBuilder(base.resolve(path))
                .timeout(Duration.ofSeconds(5))
                .GET()
                .build();
    }

    private static KafkaProducer<String, String> producer() {
        Properties props = new Properties();
        props.put(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                PIPELINE.pipeline().stack().bootstrapServers());
        props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(2 * 1024 * 1024));
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    private static String topicOf(TtlStreamsConfig config, Namespace namespace) {
        return config.sourceTopics().stream()
                .filter(topic -> config.topicNamespaceMapping()
                        .namespaceOf(topic)
                        .filter(namespace::equals)
                        .isPresent())
                .findFirst()
                .orElseThrow();
    }

    private static String error(ConsumerRecord<String, String> letter) {
        return new String(letter.headers().lastHeader(DeadLetters.ERROR_HEADER).value(), StandardCharsets.UTF_8);
    }
}
