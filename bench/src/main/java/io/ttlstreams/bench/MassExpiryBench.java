package io.ttlstreams.bench;

import io.ttlstreams.config.SchedulerOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.processor.TtlMetrics;
import io.ttlstreams.topology.TtlTopology;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.KafkaStreams;

/**
 * Figure 7 on the embedded broker: a mass expiry, and the throttle.
 *
 * <p>Each {@link Case} starts a fresh ttl-streams instance (the real topology, exactly-once, {@link BenchBroker#PARTITIONS}
 * tasks) with the case's settings, then produces N inserts whose deadlines are spread evenly over one second that
 * starts a lead time ahead (2 s + 100 µs per document), and waits until every one is scheduled
 * ({@code documents-scheduled-total}). When scheduling ran past the first deadline (a busy machine), the drain would
 * compete with it, so the case is run again, on a fresh instance, with twice the lead; after {@link #ATTEMPTS}
 * attempts the result stays flagged. A
 * {@code read_committed} consumer on the delete topic records when each command arrives, that is when its
 * transaction was committed (plus a fetch).
 *
 * <p>Reported: the drain time, from the last deadline (all N due) to the arrival of the last command; the drain
 * rate, N over the time from the first deadline to the last arrival; commands before their deadline (by the
 * command's timestamp, which is its punctuation's time; must be 0), missing and duplicate commands; the largest
 * number of commands in any one-second window of command timestamps (the throttle check); and the punctuations that
 * emitted, as distinct (partition, timestamp) pairs, with the most commands one of them emitted; and the CPU time the
 * stream threads (and the whole JVM) spent from all scheduled to all committed, per command. A command's
 * deadline is known from its key (the document's), so nothing here depends on the command's value format.
 */
final class MassExpiryBench {

    /** One drain: a name, settings over the defaults, and the number of documents falling due. */
    record Case(String name, Map<String, String> settings, int documents) {

        /** The defaults with {@code settings} over them, named by its settings ("defaults" when there are none). */
        static Case of(Map<String, String> settings, int documents) {
            String name = settings.isEmpty()
                    ? "defaults"
                    : settings.entrySet().stream()
                            .map(e -> e.getKey() + "=" + e.getValue())
                            .collect(Collectors.joining(" "));
            return new Case(name, settings, documents);
        }

        /** The throttle the case sets, or 0 for none. */
        double maxDeletesPerSecond() {
            String value = settings.get(SchedulerOptions.MAX_DELETES_PER_SECOND_CONFIG);
            return value == null ? 0 : Double.parseDouble(value);
        }
    }

    /** What a read_committed consumer saw of one delete command (its key is the document key). */
    record Command(int partition, long timestampMs, long arrivalMs, String key) {}

    /** The outcome of one case. */
    record Result(
            Case drain,
            long firstDeadlineMs,
            long lastDeadlineMs,
            long scheduledAtMs,
            int received,
            int distinct,
            int early,
            long lastArrivalMs,
            int maxInOneSecond,
            int punctuations,
            int maxPerPunctuation,
            long[] arrivalsAfterFirstDeadlineMs,
            StreamsRun.Sample drainCost) {

        /** From the last deadline (every document due) to the last command committed. */
        double drainSeconds() {
            return (lastArrivalMs - lastDeadlineMs) / 1e3;
        }

        /** Commands per second from the first deadline to the last command committed. */
        double ratePerSecond() {
            return received * 1e3 / Math.max(1, lastArrivalMs - firstDeadlineMs);
        }

        boolean scheduledBeforeDue() {
            return scheduledAtMs <= firstDeadlineMs;
        }

        int missing() {
            return drain.documents() - distinct;
        }

        int duplicates() {
            return received - distinct;
        }

        /**
         * Commands per second of stream-thread CPU from all scheduled to all committed: the punctuations, their
         * commits and the polls between them.
         */
        double commandsPerStreamCpuSecond() {
            return received * 1e9 / Math.max(1, drainCost.streamThreadCpu());
        }

        /** Stream-thread CPU per command in µs, the inverse of {@link #commandsPerStreamCpuSecond}. */
        double streamCpuMicrosPerCommand() {
            return drainCost.streamThreadCpu() / 1e3 / Math.max(1, received);
        }

        /** CPU of the whole JVM (broker included) per command in µs over the same span. */
        double processCpuMicrosPerCommand() {
            return drainCost.processCpu() / 1e3 / Math.max(1, received);
        }
    }

    private static final long LEAD_BASE_MS = 2_000;
    private static final double LEAD_MS_PER_DOCUMENT = 0.1;
    private static final int ATTEMPTS = 3;
    private static final Duration SCHEDULE_TIMEOUT = Duration.ofMinutes(5);
    /** How long after the last deadline missing commands are still waited for. */
    private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(3);

    final List<Result> results = new ArrayList<>();

    private final BenchBroker broker;
    private final List<Case> cases;
    private final Consumer<String> log;

    MassExpiryBench(BenchBroker broker, List<Case> cases, Consumer<String> log) {
        this.broker = broker;
        this.cases = cases;
        this.log = log;
    }

    void run() throws InterruptedException {
        int instances = 0;
        for (Case drain : cases) {
            long leadMs = LEAD_BASE_MS + (long) (drain.documents() * LEAD_MS_PER_DOCUMENT);
            Result result = drain(String.format(Locale.ROOT, "bench-drain-%02d", ++instances), drain, leadMs);
            for (int attempt = 2; attempt <= ATTEMPTS && !result.scheduledBeforeDue(); attempt++) {
                leadMs *= 2;
                log.accept(String.format(
                        Locale.ROOT,
                        "%s: scheduling ran past the first deadline; again with a lead of %.1f s",
                        drain.name(),
                        leadMs / 1e3));
                result = drain(String.format(Locale.ROOT, "bench-drain-%02d", ++instances), drain, leadMs);
            }
            results.add(result);
            log.accept(String.format(
                    Locale.ROOT,
                    "%s, %d due: last command %.1f s after the last deadline, %.0f/s; stream-thread CPU %.1f µs"
                            + " per command (%.0f commands per CPU second), JVM CPU %.1f µs per command%s",
                    result.drain().name(),
                    result.drain().documents(),
                    result.drainSeconds(),
                    result.ratePerSecond(),
                    result.streamCpuMicrosPerCommand(),
                    result.commandsPerStreamCpuSecond(),
                    result.processCpuMicrosPerCommand(),
                    result.scheduledBeforeDue() ? "" : " (scheduling ran past the first deadline)"));
        }
    }

    private Result drain(String app, Case drain, long leadMs) throws InterruptedException {
        String source = app + ".events";
        broker.createTopics(source);
        TtlStreamsConfig config = broker.ttlConfig(app, source, drain.settings());
        int n = drain.documents();
        CommandReader reader = new CommandReader(broker.bootstrapServers(), config.deleteTopic());
        reader.start();
        long firstDeadline;
        long lastDeadline;
        long scheduledAt;
        StreamsRun.Sample drainCost;
        try (StreamsRun run = StreamsRun.start(
                new KafkaStreams(
                        TtlTopology.build(config, BenchBroker.PARTITIONS), BenchSupport.streamsProperties(config)),
                app)) {
            run.awaitRunning(Duration.ofMinutes(2));
            Instant now = Instant.now();
            firstDeadline = now.toEpochMilli() + leadMs;
            lastDeadline = deadline(firstDeadline, n - 1, n);
            ChangeEventFactory factory = new ChangeEventFactory(BenchSupport.NAMESPACE);
            long first = firstDeadline;
            broker.produce(
                    n,
                    i -> BrokerBench.event(
                            source, factory, "insert", 1, i, now, Instant.ofEpochMilli(deadline(first, i, n))));
            run.await("scheduling all " + n, () -> BenchSupport.ttlTotal(TtlMetrics.SCHEDULED) >= n, SCHEDULE_TIMEOUT);
            scheduledAt = System.currentTimeMillis();
            StreamsRun.Sample atScheduled = run.sample();
            Duration untilDrained =
                    Duration.ofMillis(Math.max(0, lastDeadline - scheduledAt)).plus(DRAIN_TIMEOUT);
            if (!run.awaitUpTo(untilDrained, () -> reader.distinct() >= n)) {
                log.accept(app + ": " + (n - reader.distinct()) + " commands still missing after " + untilDrained);
            }
            drainCost = run.sample().minus(atScheduled);
        } finally {
            reader.stop();
        }
        return result(drain, firstDeadline, lastDeadline, scheduledAt, reader.commands(), drainCost);
    }

    /** The i-th of n deadlines spread evenly over the second from {@code first}. */
    private static long deadline(long first, long i, int n) {
        return first + i * 1_000L / n;
    }

    private static Result result(
            Case drain,
            long firstDeadline,
            long lastDeadline,
            long scheduledAt,
            List<Command> commands,
            StreamsRun.Sample drainCost) {
        Set<String> keys = new HashSet<>();
        Map<Long, Integer> perPunctuation = new HashMap<>();
        long[] timestamps = new long[commands.size()];
        long[] arrivals = new long[commands.size()];
        int early = 0;
        long lastArrival = firstDeadline;
        for (int i = 0; i < commands.size(); i++) {
            Command command = commands.get(i);
            keys.add(command.key());
            long deadline = deadline(firstDeadline, BenchSupport.idOf(command.key()), drain.documents());
            if (command.timestampMs() < deadline) {
                early++;
            }
            // Partition in the low bits: the pair (partition, timestamp) is one punctuation of one task.
            perPunctuation.merge(command.timestampMs() * BenchBroker.PARTITIONS + command.partition(), 1, Integer::sum);
            timestamps[i] = command.timestampMs();
            arrivals[i] = command.arrivalMs() - firstDeadline;
            lastArrival = Math.max(lastArrival, command.arrivalMs());
        }
        return new Result(
                drain,
                firstDeadline,
                lastDeadline,
                scheduledAt,
                commands.size(),
                keys.size(),
                early,
                lastArrival,
                Stats.maxInWindow(timestamps, 1_000),
                perPunctuation.size(),
                perPunctuation.values().stream()
                        .mapToInt(Integer::intValue)
                        .max()
                        .orElse(0),
                arrivals,
                drainCost);
    }

    /** Reads the delete topic from the beginning, committed records only, on its own thread. */
    private static final class CommandReader {
        private final KafkaConsumer<String, String> consumer;
        private final String topic;
        private final AtomicBoolean stop = new AtomicBoolean();
        private final List<Command> commands = new ArrayList<>();
        private final Set<String> keys = new HashSet<>();
        private final Thread thread;
        private volatile RuntimeException failure;

        CommandReader(String bootstrapServers, String topic) {
            this.topic = topic;
            this.consumer = new KafkaConsumer<>(
                    Map.of(
                            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                            bootstrapServers,
                            ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                            IsolationLevel.READ_COMMITTED.toString(),
                            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                            "false"),
                    new StringDeserializer(),
                    new StringDeserializer());
            this.thread = new Thread(this::read, "bench-command-reader");
            thread.setDaemon(true);
        }

        void start() {
            thread.start();
        }

        private void read() {
            try (consumer) {
                List<TopicPartition> partitions = new ArrayList<>();
                for (int p = 0; p < BenchBroker.PARTITIONS; p++) {
                    partitions.add(new TopicPartition(topic, p));
                }
                consumer.assign(partitions);
                consumer.seekToBeginning(partitions);
                while (!stop.get()) {
                    for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(50))) {
                        long arrival = System.currentTimeMillis();
                        synchronized (this) {
                            commands.add(new Command(record.partition(), record.timestamp(), arrival, record.key()));
                            keys.add(record.key());
                        }
                    }
                }
            } catch (RuntimeException e) {
                failure = e;
            }
        }

        synchronized int distinct() {
            if (failure != null) {
                throw new IllegalStateException("The delete command reader failed", failure);
            }
            return keys.size();
        }

        synchronized List<Command> commands() {
            return List.copyOf(commands);
        }

        void stop() throws InterruptedException {
            stop.set(true);
            thread.join(10_000);
        }
    }
}
