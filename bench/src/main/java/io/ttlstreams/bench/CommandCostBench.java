package io.ttlstreams.bench;

import io.ttlstreams.config.OperationsOptions;
import io.ttlstreams.config.RuleConfig;
import io.ttlstreams.config.SchedulerOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.processor.TtlMetrics;
import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.schema.TaskRecord;
import io.ttlstreams.state.ScheduleStores;
import io.ttlstreams.topology.TtlTopology;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.bson.BsonDocument;

/**
 * The stream thread's CPU per emitted delete command and per confirmed expiry, without a broker, with expiry events
 * off and on: the real topology in a TopologyTestDriver over RocksDB (changelogging on, caching off, as in
 * production), one driver per {@link Variant}, N entries scheduled far ahead, then, punctuation after punctuation, D
 * entries due before a later one.
 *
 * <p>Each cycle of a variant: D entries are scheduled {@value #LEAD_MS} ms before their deadlines (with expiry events
 * on, with their notices {@value #NOTICE_BEFORE_SECONDS} s before, as the scheduler puts them); one punctuation is
 * timed (the schedule's scans, the commands' JSON and serialization, the moves to the confirmations timeline and
 * their changelog records, and with expiry events on the EXPIRING notices of the documents due a second later: in the
 * steady state one per command), divided by the commands it emitted; then the delete change events that confirm
 * those commands are piped in and timed, divided by their number (the parse, {@code EventApplier}'s confirmation and,
 * on, the pre-image check and the expired record written by {@code ExpiredRecords}). Expiry events off: no expired
 * topic, and delete events without a pre-image, as the source connector is rendered when no rule asks for one. On:
 * {@code ttl.expired.topic}, {@code expired.document=pre-image}, {@code notice.before.seconds}, and delete events
 * carrying the document as it was. The driver runs both on the calling thread, with its commit and output capture
 * (one commit per piped record), alike for both variants. The variants alternate cycle by cycle, in a rotated order
 * (AB, BA, ...), so that drift in the machine's load does not always hit the same one. Bytes: the key and value bytes
 * of every record the cycle's punctuation or confirmations wrote (commands, changelogs, expired records and
 * notices), by topic; no batch or header overhead (the broker figures of {@link EventCostBench} count log bytes).
 *
 * <p>The producer's network side and the transaction commit are not in it ({@link DrainOnly} has them, with the
 * broker's noise). {@code java -cp 'bench/target/ttl-streams-bench.jar:bench/target/lib/*'
 * io.ttlstreams.bench.CommandCostBench [N D WARMUP MEASURED [VARIANTS]]}, defaults 10000 1000 60 40
 * expiry-events-off,expiry-events-on: one line per variant.
 */
public final class CommandCostBench {

    private static final long INTERVAL_MS = 100;
    /** A rule's notice period with expiry events on. */
    static final int NOTICE_BEFORE_SECONDS = 1;
    /**
     * How long before its deadline a due entry is scheduled: past the notice period, so that its notice is ahead too
     * and each punctuation publishes, in the steady state, the notices of as many documents as it emits commands for.
     */
    static final long LEAD_MS = 2_000;

    private static final String EXPIRED_TOPIC = "ttl.bench.expired";

    /**
     * Expiry events off (the defaults) or on; and, run only when asked, the defaults with signed commands ({@value
     * OperationsOptions#COMMAND_SIGNING_KEY_CONFIG}, as production recommends), for the signature's share.
     */
    enum Variant {
        EXPIRY_EVENTS_OFF("expiry-events-off", Map.of()),
        EXPIRY_EVENTS_ON("expiry-events-on", expiryEventsWithPreImages()),
        SIGNED(
                "signed",
                Map.of(OperationsOptions.COMMAND_SIGNING_KEY_CONFIG, "ttl-streams-bench-signing-key-0123456789"));

        final String label;
        final Map<String, String> settings;

        Variant(String label, Map<String, String> settings) {
            this.label = label;
            this.settings = settings;
        }

        static Variant of(String label) {
            for (Variant variant : values()) {
                if (variant.label.equals(label)) {
                    return variant;
                }
            }
            throw new IllegalArgumentException("VARIANTS: no variant " + label + ", expected one of "
                    + Arrays.stream(values()).map(v -> v.label).toList());
        }

        boolean on() {
            return this == EXPIRY_EVENTS_ON;
        }

        private static Map<String, String> expiryEventsWithPreImages() {
            Map<String, String> settings =
                    new HashMap<>(BenchSupport.expiryEvents(EXPIRED_TOPIC, NOTICE_BEFORE_SECONDS));
            settings.put(BenchSupport.ruleOption(RuleConfig.EXPIRED_DOCUMENT_CONFIG), "pre-image");
            return Map.copyOf(settings);
        }
    }

    private CommandCostBench() {}

    /**
     * @param args schedule size N, due per punctuation D, warm-up and measured punctuations, and the variants to run
     *     (comma-separated labels; default expiry-events-off,expiry-events-on)
     */
    public static void main(String[] args) {
        int size = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int due = args.length > 1 ? Integer.parseInt(args[1]) : 1_000;
        int warmUp = args.length > 2 ? Integer.parseInt(args[2]) : 60;
        int measured = args.length > 3 ? Integer.parseInt(args[3]) : 40;
        List<Variant> variants = args.length > 4
                ? Arrays.stream(args[4].split(",")).map(Variant::of).toList()
                : List.of(Variant.EXPIRY_EVENTS_OFF, Variant.EXPIRY_EVENTS_ON);
        if (warmUp * INTERVAL_MS < LEAD_MS) {
            throw new IllegalArgumentException("WARMUP must cover the lead of " + LEAD_MS + " ms: at least "
                    + LEAD_MS / INTERVAL_MS + " punctuations, was " + warmUp);
        }
        List<Subject> subjects = new ArrayList<>();
        try {
            for (Variant variant : variants) {
                subjects.add(new Subject(variant, size, due, measured));
            }
            for (int cycle = 0; cycle < warmUp + measured; cycle++) {
                for (Subject subject : BrokerBench.rotated(subjects, cycle % subjects.size())) {
                    subject.cycle(cycle, cycle >= warmUp ? cycle - warmUp : -1);
                }
            }
            for (Subject subject : subjects) {
                subject.print(size, due, measured);
            }
        } finally {
            subjects.forEach(Subject::close);
        }
    }

    /** One variant in its own driver and state directory. */
    private static final class Subject implements AutoCloseable {
        private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

        private final Variant variant;
        private final int due;
        private final Path dir;
        private final TopologyTestDriver driver;
        private final KeyValueStore<Bytes, ScheduleEntry> schedule;
        private final KeyValueStore<Bytes, IndexEntry> index;
        private final KeyValueStore<Bytes, TaskRecord> task;
        private final TestInputTopic<String, String> source;
        private final String commandTopic;
        private final Map<String, TestOutputTopic<byte[], byte[]>> outputs = new HashMap<>();
        private final ChangeEventFactory events = new ChangeEventFactory(BenchSupport.NAMESPACE);
        /** Deadline by document, from scheduling to confirmation. */
        private final Map<Long, Long> deadlines = new HashMap<>();

        private final double[] microsPerCommand;
        private final double[] microsPerConfirmation;
        private final Map<String, Long> commandBytes = new TreeMap<>();
        private final Map<String, Long> confirmationBytes = new TreeMap<>();
        private long commands;
        private long confirmations;
        private long notices;
        private long expiredRecords;
        private long now = BenchSupport.START.toEpochMilli();
        private long nextId;

        Subject(Variant variant, int size, int due, int measured) {
            this.variant = variant;
            this.due = due;
            this.microsPerCommand = new double[measured];
            this.microsPerConfirmation = new double[measured];
            Map<String, String> settings = new HashMap<>(variant.settings);
            settings.put(SchedulerOptions.PUNCTUATE_INTERVAL_MS_CONFIG, Long.toString(INTERVAL_MS));
            TtlStreamsConfig config = BenchSupport.config(settings);
            this.dir = BenchSupport.tempStateDir("ttl-bench-commands");
            this.driver = new TopologyTestDriver(
                    TtlTopology.build(config), BenchSupport.streamsProperties(config, dir), BenchSupport.START);
            this.schedule = driver.getKeyValueStore(ScheduleStores.SCHEDULE);
            this.index = driver.getKeyValueStore(ScheduleStores.INDEX);
            this.task = driver.getKeyValueStore(ScheduleStores.TASK);
            this.source = driver.createInputTopic(
                    config.sourceTopics().get(0), new StringSerializer(), new StringSerializer());
            this.commandTopic = config.deleteTopic();
            long farAhead = now + Duration.ofDays(1).toMillis();
            for (int i = 0; i < size; i++) {
                schedule(nextId++, farAhead + i * 10L);
            }
            captureUncounted();
        }

        /**
         * Schedules D entries due {@link #LEAD_MS} ahead, times one punctuation, then the confirmations of the
         * commands it emitted; {@code sample} is the index of the measurement, or -1 in the warm-up.
         */
        void cycle(int cycle, int sample) {
            for (int i = 0; i < due; i++) {
                schedule(nextId++, now + LEAD_MS + 1 + (i % INTERVAL_MS));
            }
            captureUncounted();

            long cpu = THREADS.getCurrentThreadCpuTime();
            driver.advanceWallClockTime(Duration.ofMillis(INTERVAL_MS));
            cpu = THREADS.getCurrentThreadCpuTime() - cpu;
            now += INTERVAL_MS;
            Map<String, List<TestRecord<byte[], byte[]>>> punctuation = capture();
            List<TestRecord<byte[], byte[]>> emitted = punctuation.getOrDefault(commandTopic, List.of());
            if (emitted.isEmpty() && cycle * INTERVAL_MS > LEAD_MS) {
                throw new IllegalStateException(variant.label + ": punctuation " + cycle + " emitted no command");
            }
            int published = punctuation.getOrDefault(EXPIRED_TOPIC, List.of()).size();

            List<KeyValue<String, String>> deletes = new ArrayList<>(emitted.size());
            for (TestRecord<byte[], byte[]> command : emitted) {
                long id = BenchSupport.idOf(new String(command.key(), StandardCharsets.UTF_8));
                Instant deadline = Instant.ofEpochMilli(deadlines.remove(id));
                BsonDocument preImage = variant.on() ? ChangeEventFactory.document(id, 1, deadline) : null;
                deletes.add(KeyValue.pair(
                        BenchSupport.keyJson(id), events.delete(id, Instant.ofEpochMilli(now), preImage)));
            }
            long confirmedBefore = total(TtlMetrics.CONFIRMED);
            long confirmCpu = THREADS.getCurrentThreadCpuTime();
            for (KeyValue<String, String> delete : deletes) {
                source.pipeInput(delete.key, delete.value, now);
            }
            confirmCpu = THREADS.getCurrentThreadCpuTime() - confirmCpu;
            Map<String, List<TestRecord<byte[], byte[]>>> confirmation = capture();
            long confirmed = total(TtlMetrics.CONFIRMED) - confirmedBefore;
            int records = confirmation.getOrDefault(EXPIRED_TOPIC, List.of()).size();
            // The figure must be of what it claims: every delete confirmed its command, and wrote its record if on.
            if (confirmed != deletes.size() || records != (variant.on() ? deletes.size() : 0)) {
                throw new IllegalStateException(String.format(
                        Locale.ROOT,
                        "%s: punctuation %d: %d deletes confirmed %d commands and wrote %d expired records",
                        variant.label,
                        cycle,
                        deletes.size(),
                        confirmed,
                        records));
            }
            if (sample >= 0 && !emitted.isEmpty()) {
                // A punctuation cut short by its time budget (a cold JIT, a busy machine) leaves the rest to the
                // next one: the cost per command it emitted is the figure either way.
                microsPerCommand[sample] = cpu / 1e3 / emitted.size();
                microsPerConfirmation[sample] = confirmCpu / 1e3 / deletes.size();
                commands += emitted.size();
                confirmations += deletes.size();
                notices += published;
                expiredRecords += records;
                addBytes(punctuation, commandBytes);
                addBytes(confirmation, confirmationBytes);
            } else if (sample >= 0) {
                throw new IllegalStateException(variant.label + ": measured punctuation " + cycle + " emitted none");
            }
        }

        private void schedule(long id, long deadline) {
            BenchSupport.scheduleDirectly(
                    schedule, index, task, id, deadline, variant.on() ? NOTICE_BEFORE_SECONDS * 1000L : 0);
            deadlines.put(id, deadline);
        }

        /**
         * Lets the driver collect what the direct store writes produced (their changelog records, sent when written,
         * collected at the driver's next step) and drops it, so that they count in no timed step; the zero advance
         * fires no punctuation (the last one ran at this time).
         */
        private void captureUncounted() {
            driver.advanceWallClockTime(Duration.ZERO);
            capture();
        }

        /** Everything the driver captured since the last call, by topic. */
        private Map<String, List<TestRecord<byte[], byte[]>>> capture() {
            Map<String, List<TestRecord<byte[], byte[]>>> captured = new HashMap<>();
            for (String topic : driver.producedTopicNames()) {
                TestOutputTopic<byte[], byte[]> output = outputs.computeIfAbsent(
                        topic,
                        name -> driver.createOutputTopic(
                                name, new ByteArrayDeserializer(), new ByteArrayDeserializer()));
                List<TestRecord<byte[], byte[]>> records = output.readRecordsToList();
                if (!records.isEmpty()) {
                    captured.put(topic, records);
                }
            }
            return captured;
        }

        private static void addBytes(Map<String, List<TestRecord<byte[], byte[]>>> captured, Map<String, Long> sums) {
            captured.forEach((topic, records) -> {
                long bytes = 0;
                for (TestRecord<byte[], byte[]> record : records) {
                    bytes += (record.key() == null ? 0 : record.key().length)
                            + (record.value() == null ? 0 : record.value().length);
                }
                sums.merge(topic.replace(BenchSupport.APPLICATION_ID + "-", "<app>-"), bytes, Long::sum);
            });
        }

        /** The sum over tasks and rules of a processor counter. */
        private long total(String counter) {
            return (long) BenchSupport.ttlTotal(counter);
        }

        void print(int size, int due, int measured) {
            double command = Stats.median(microsPerCommand);
            System.out.printf(
                    Locale.ROOT,
                    "variant=%s n=%d due=%d punctuations=%d cpu_us_per_command median=%.1f min=%.1f max=%.1f"
                            + " commands_per_cpu_s=%.0f cpu_us_per_confirmation median=%.1f min=%.1f max=%.1f"
                            + " bytes_per_command=%.1f bytes_per_confirmation=%.1f notices_per_command=%.2f"
                            + " expired_records_per_confirmation=%.2f load=%.2f%n",
                    variant.label,
                    size,
                    due,
                    measured,
                    command,
                    Stats.min(microsPerCommand),
                    Stats.max(microsPerCommand),
                    1e6 / command,
                    Stats.median(microsPerConfirmation),
                    Stats.min(microsPerConfirmation),
                    Stats.max(microsPerConfirmation),
                    perUnit(commandBytes, commands),
                    perUnit(confirmationBytes, confirmations),
                    (double) notices / commands,
                    (double) expiredRecords / confirmations,
                    ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
            System.out.printf(
                    Locale.ROOT,
                    "variant=%s bytes_per_command_by_topic=%s bytes_per_confirmation_by_topic=%s%n",
                    variant.label,
                    byTopic(commandBytes, commands),
                    byTopic(confirmationBytes, confirmations));
        }

        private static double perUnit(Map<String, Long> bytes, long units) {
            return (double) bytes.values().stream().mapToLong(Long::longValue).sum() / units;
        }

        private static Map<String, String> byTopic(Map<String, Long> bytes, long units) {
            Map<String, String> per = new TreeMap<>();
            bytes.forEach((topic, sum) -> per.put(topic, String.format(Locale.ROOT, "%.1f", (double) sum / units)));
            return per;
        }

        @Override
        public void close() {
            try {
                driver.close();
            } finally {
                BenchSupport.deleteRecursively(dir);
            }
        }
    }
}
