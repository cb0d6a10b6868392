package io.ttlstreams.bench;

import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import io.ttlstreams.app.TtlStreamsCli;
import io.ttlstreams.config.RulesOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.embedded.ConnectProcess;
import io.ttlstreams.embedded.EmbeddedKafka;
import io.ttlstreams.embedded.app.EmbeddedOptions;
import io.ttlstreams.embedded.app.EmbeddedPipeline;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.StreamsConfig;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.Document;

/**
 * {@code bench chaos}: the embedded stack with several brokers (a quorum of three controllers beside them), processor
 * instances each in a JVM of its own ({@code ttl-streams run --config}, as production runs them, each with a state
 * directory that survives its restarts, as a StatefulSet's volume does), a steady workload of inserts whose deadlines
 * are spread over the next {@value #MIN_LEAD_MS}–{@value #MAX_LEAD_MS} ms, one document in ten renewed before its
 * deadline; the Connect worker (distributed, the stack's connectors and sink guard) in a JVM of its own too ({@link
 * ConnectProcess}); and the disturbances of issue 33, one after another, with quiet time between them. Every document's
 * deadline, first committed delete command, command count, deletion and renewal are recorded ({@link ChaosLedger}).
 */
final class ChaosBench {

    static final long MIN_LEAD_MS = 5_000;
    static final long MAX_LEAD_MS = 20_000;
    /** Renewed this long after the insert, before its deadline. */
    static final long RENEW_AFTER_MS = 3_000;
    /** The Connect worker JVM's heap. */
    static final String CONNECT_HEAP = "256m";

    /** What a run needs. */
    record Settings(
            int rate,
            int instances,
            int brokers,
            int partitions,
            long quietMs,
            long brokerDownMs,
            String instanceHeap,
            Map<String, String> streams,
            boolean staticMembership,
            Set<String> scenarios,
            Path instanceLogConfig) {}

    /** Wall-clock times as the instances' logs print them (log4j's %d{HH:mm:ss.SSS}, the local zone). */
    private static final DateTimeFormatter CLOCK =
            DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(ZoneId.systemDefault());

    /** The scenarios, by the names {@code --scenarios} takes, in the order they run. */
    static final List<String> SCENARIOS =
            List.of("rolling-restart", "scale", "kill-one", "kill-two", "broker", "controller", "connect");

    /** A disturbance's window: from its start to when the last thing it did is done. */
    record Window(String scenario, long start, long end) {}

    private final String variant;
    private final Settings settings;
    private final Path dir;
    private final Consumer<String> log;
    final ChaosLedger ledger = new ChaosLedger();
    final List<Window> windows = new ArrayList<>();
    long runStart;
    final Map<String, String> memory = new HashMap<>();

    ChaosBench(String variant, Settings settings, Path dir, Consumer<String> log) {
        this.variant = variant;
        this.settings = settings;
        this.dir = dir;
        this.log = log;
    }

    void run() throws Exception {
        Files.createDirectories(dir);
        Map<String, String> props = new HashMap<>();
        props.put(RulesOptions.RULES_CONFIG, BenchSupport.RULE);
        props.put("ttl.rule.sessions.namespace", BenchSupport.NAMESPACE);
        props.put("ttl.rule.sessions.field", "expireAt");
        props.put(EmbeddedOptions.EMBEDDED_MONGODB_PORT_CONFIG, "0");
        props.put(EmbeddedOptions.EMBEDDED_KAFKA_PORT_CONFIG, "0");
        props.put(EmbeddedOptions.EMBEDDED_CONNECT_PORT_CONFIG, "0");
        props.put(EmbeddedOptions.EMBEDDED_KAFKA_BROKERS_CONFIG, Integer.toString(settings.brokers()));
        props.put(EmbeddedOptions.EMBEDDED_PARTITIONS_CONFIG, Integer.toString(settings.partitions()));
        props.put(EmbeddedOptions.EMBEDDED_DATA_DIR_CONFIG, dir.resolve("stack").toString());
        props.putAll(settings.streams());
        try (EmbeddedPipeline pipeline = EmbeddedPipeline.start(new TtlStreamsConfig(props));
                MongoClient client = MongoClients.create(pipeline.stack().mongoConnectionString())) {
            // The instances are JVMs of their own, on the settings the in-process processor was given.
            Map<String, String> instanceSettings = new HashMap<>();
            pipeline.processorConfig().originals().forEach((k, v) -> instanceSettings.put(k, String.valueOf(v)));
            pipeline.stopProcessor();
            // Connect in a JVM of its own, which a scenario kills, before anything is written.
            ConnectProcess connect = pipeline.stack().moveConnectToOwnJvm(CONNECT_HEAP, dir.resolve("connect.log"));
            Instances instances = new Instances(instanceSettings);
            // Ctrl-C ends this JVM without the finally below: the instances must not outlive it.
            Thread reaper = new Thread(instances::stopAll, "chaos-instance-reaper");
            Runtime.getRuntime().addShutdownHook(reaper);
            MongoCollection<Document> sessions = client.getDatabase("app").getCollection("sessions");
            AtomicBoolean stop = new AtomicBoolean();
            Thread deletes = watchDeletes(sessions, stop);
            Thread commands = watchCommands(
                    pipeline.stack().bootstrapServers(), pipeline.stack().deleteTopic(), stop);
            ScheduledExecutorService writer = Executors.newScheduledThreadPool(2);
            try {
                for (int i = 0; i < settings.instances(); i++) {
                    instances.start(i);
                }
                instances.awaitAllReady();
                runStart = System.currentTimeMillis();
                log.accept(String.format(
                        "[%s] %s workload started (time 0 of documents-%s.csv)",
                        variant, CLOCK.format(Instant.ofEpochMilli(runStart)), variant));
                write(writer, sessions);
                quiet();
                scenarios(
                        instances,
                        pipeline.stack().kafka(),
                        connect,
                        pipeline.stack().connectorNames());
                quiet();
                writer.shutdown();
                writer.awaitTermination(30, TimeUnit.SECONDS);
                long waitUntil = ledger.lastDeadline() + 60_000;
                while (ledger.pending() > 0 && System.currentTimeMillis() < waitUntil) {
                    Thread.sleep(200);
                }
                memory.putAll(instances.memory());
                memory.put("Connect worker", ProcessMemory.describe(connect.pid()));
                memory.put(
                        "bench JVM (stack)",
                        ProcessMemory.describe(ProcessHandle.current().pid()));
            } finally {
                writer.shutdownNow();
                stop.set(true);
                deletes.join(5_000);
                commands.join(5_000);
                instances.stopAll();
                Runtime.getRuntime().removeShutdownHook(reaper);
            }
        }
    }

    private void scenarios(Instances instances, EmbeddedKafka kafka, ConnectProcess connect, List<String> connectors)
            throws Exception {
        int n = settings.instances();
        disturb("rolling-restart", "rolling restart of " + n + " instances (SIGTERM, start, ready)", () -> {
            for (int i = 0; i < n; i++) {
                instances.stop(i);
                instances.start(i);
                instances.awaitReady(i);
            }
        });
        int half = Math.max(1, n / 2);
        disturb("scale", "scale in " + n + " -> " + half, () -> {
            for (int i = half; i < n; i++) {
                instances.stop(i);
            }
        });
        disturb("scale", "scale out " + half + " -> " + n, () -> {
            for (int i = half; i < n; i++) {
                instances.start(i);
            }
            for (int i = half; i < n; i++) {
                instances.awaitReady(i);
            }
        });
        disturb("kill-one", "kill -9 of one instance", () -> {
            instances.kill(0);
            Thread.sleep(settings.brokerDownMs());
            instances.start(0);
            instances.awaitReady(0);
        });
        disturb("kill-two", "kill -9 of two instances at once", () -> {
            instances.kill(0);
            instances.kill(1);
            Thread.sleep(settings.brokerDownMs());
            instances.start(0);
            instances.start(1);
            instances.awaitReady(0);
            instances.awaitReady(1);
        });
        int broker = settings.scenarios().contains("broker") ? kafka.transactionCoordinatorBroker() : 0;
        disturb(
                "broker",
                "broker " + broker + " stopped hard (transaction coordinator / most changelog leaders), back after "
                        + settings.brokerDownMs() / 1000 + " s",
                () -> {
                    kafka.killBroker(broker);
                    Thread.sleep(settings.brokerDownMs());
                    kafka.startBroker(broker);
                });
        disturb("controller", "active controller lost, back after " + settings.brokerDownMs() / 1000 + " s", () -> {
            int controller = kafka.activeController();
            kafka.killController(controller);
            Thread.sleep(settings.brokerDownMs());
            kafka.startController(controller);
        });
        disturb(
                "connect",
                "Connect worker killed (kill -9), back after " + settings.brokerDownMs() / 1000 + " s",
                () -> {
                    connect.kill();
                    Thread.sleep(settings.brokerDownMs());
                    connect.start();
                    Duration back = connect.awaitConnectors(connectors, Duration.ofMinutes(3));
                    log.accept(String.format(
                            "[%s] Connect worker's connectors RUNNING %d ms after its start",
                            variant, back.toMillis()));
                });
    }

    /**
     * A disturbance, then quiet time so that its late deletions settle before the next one; nothing unless {@code
     * name} is among the scenarios asked for.
     */
    private void disturb(String name, String scenario, Disturbance disturbance) throws Exception {
        if (!settings.scenarios().contains(name)) {
            return;
        }
        long start = System.currentTimeMillis();
        log.accept(String.format("[%s] +%d s %s", variant, (start - runStart) / 1000, scenario));
        disturbance.run();
        windows.add(new Window(scenario, start, System.currentTimeMillis()));
        quiet();
    }

    private void quiet() throws InterruptedException {
        Thread.sleep(settings.quietMs());
    }

    @FunctionalInterface
    private interface Disturbance {
        void run() throws Exception;
    }

    /** Inserts {@code rate} documents a second, in batches every 100 ms, one in ten renewed later. */
    private void write(ScheduledExecutorService writer, MongoCollection<Document> sessions) {
        AtomicLong next = new AtomicLong();
        int perBatch = Math.max(1, settings.rate() / 10);
        writer.scheduleAtFixedRate(
                () -> {
                    long now = System.currentTimeMillis();
                    List<Document> batch = new ArrayList<>(perBatch);
                    List<ChaosLedger.Life> added = new ArrayList<>();
                    for (int i = 0; i < perBatch; i++) {
                        long id = next.getAndIncrement();
                        long deadline = now + ThreadLocalRandom.current().nextLong(MIN_LEAD_MS, MAX_LEAD_MS);
                        batch.add(new Document("_id", id).append("expireAt", new Date(deadline)));
                        added.add(new ChaosLedger.Life(id, deadline));
                    }
                    sessions.insertMany(batch);
                    for (ChaosLedger.Life life : added) {
                        ChaosLedger.Life tracked = ledger.add(life.id, life.deadline);
                        if (life.id % 10 == 0) {
                            writer.schedule(() -> renew(sessions, tracked), RENEW_AFTER_MS, TimeUnit.MILLISECONDS);
                        }
                    }
                },
                0,
                100,
                TimeUnit.MILLISECONDS);
    }

    private static void renew(MongoCollection<Document> sessions, ChaosLedger.Life life) {
        if (sessions.updateOne(
                                Filters.eq("_id", life.id),
                                Updates.set(
                                        "expireAt",
                                        new Date(life.deadline
                                                + Duration.ofHours(1).toMillis())))
                        .getModifiedCount()
                == 1) {
            life.renewed = true;
        }
    }

    /** When each delete reaches the collection's change stream. */
    private Thread watchDeletes(MongoCollection<Document> sessions, AtomicBoolean stop) {
        Thread thread = new Thread(
                () -> {
                    try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor = sessions.watch(
                                    List.of(Aggregates.match(Filters.eq("operationType", "delete"))))
                            .maxAwaitTime(100, TimeUnit.MILLISECONDS)
                            .cursor()) {
                        while (!stop.get()) {
                            ChangeStreamDocument<Document> change = cursor.tryNext();
                            if (change == null || change.getDocumentKey() == null) {
                                continue;
                            }
                            long now = System.currentTimeMillis();
                            BsonValue id = change.getDocumentKey().get("_id");
                            ChaosLedger.Life life = id != null && id.isNumber()
                                    ? ledger.get(id.asNumber().longValue())
                                    : null;
                            if (life != null && life.gone < 0) {
                                life.gone = now;
                            }
                        }
                    } catch (RuntimeException e) {
                        if (!stop.get()) {
                            log.accept("delete watcher failed: " + e);
                        }
                    }
                },
                "chaos-delete-watcher");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /** Each committed delete command (read_committed, as the sink reads them): the first one's time, and the count. */
    private Thread watchCommands(String bootstrapServers, String topic, AtomicBoolean stop) {
        Thread thread = new Thread(
                () -> {
                    Properties props = new Properties();
                    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
                    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
                    try (KafkaConsumer<String, String> consumer =
                            new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
                        List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                                .map(p -> new TopicPartition(topic, p.partition()))
                                .toList();
                        consumer.assign(partitions);
                        consumer.seekToBeginning(partitions);
                        while (!stop.get()) {
                            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                                BsonValue id = BsonDocument.parse(record.key()).get("_id");
                                ChaosLedger.Life life = id != null && id.isNumber()
                                        ? ledger.get(id.asNumber().longValue())
                                        : null;
                                if (life != null) {
                                    life.commands++;
                                    if (life.firstCommand < 0 || record.timestamp() < life.firstCommand) {
                                        life.firstCommand = record.timestamp();
                                    }
                                }
                            }
                        }
                    } catch (RuntimeException e) {
                        if (!stop.get()) {
                            log.accept("command watcher failed: " + e);
                        }
                    }
                },
                "chaos-command-watcher");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /** The processor instances, each {@code ttl-streams run --config} in a JVM of its own. */
    private final class Instances {
        private final Map<String, String> settingsBase;
        private final Process[] processes = new Process[settings.instances()];
        private final Path[] logs = new Path[settings.instances()];
        private final int[] starts = new int[settings.instances()];
        private final long[] started = new long[settings.instances()];

        Instances(Map<String, String> settingsBase) {
            this.settingsBase = settingsBase;
        }

        void start(int i) throws IOException {
            List<String> command = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx" + settings.instanceHeap()));
            if (settings.instanceLogConfig() != null) {
                command.add("-Dlog4j2.configurationFile="
                        + settings.instanceLogConfig().toAbsolutePath());
            }
            Map<String, String> props = new HashMap<>(settingsBase);
            // Its own state directory, kept across its restarts, as a StatefulSet pod keeps its volume.
            props.put(
                    StreamsConfig.STATE_DIR_CONFIG,
                    dir.resolve("instance-" + i + "-state").toString());
            if (settings.staticMembership()) {
                // Stable across its restarts, as a StatefulSet pod's name is (TTL_STREAMS_GROUP_INSTANCE_ID).
                props.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "ttl-streams-" + i);
            }
            Path config = dir.resolve("instance-" + i + ".properties");
            Properties properties = new Properties();
            properties.putAll(props);
            try (Writer writer = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
                properties.store(writer, null);
            }
            logs[i] = dir.resolve("instance-" + i + "-" + (++starts[i]) + ".log");
            command.addAll(List.of(
                    "-cp",
                    System.getProperty("java.class.path"),
                    TtlStreamsCli.class.getName(),
                    "run",
                    "--config",
                    config.toString()));
            processes[i] = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(logs[i].toFile())
                    .start();
            started[i] = act(i, "started, log " + logs[i].getFileName());
        }

        void awaitReady(int i) throws InterruptedException {
            long deadline = System.currentTimeMillis() + 180_000;
            while (System.currentTimeMillis() < deadline) {
                if (!processes[i].isAlive()) {
                    throw new IllegalStateException("instance " + i + " exited; see " + logs[i]);
                }
                try {
                    if (Files.readString(logs[i]).contains("ttl-streams ready")) {
                        act(i, "ready " + (System.currentTimeMillis() - started[i]) + " ms after its start");
                        return;
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                Thread.sleep(100);
            }
            throw new IllegalStateException("instance " + i + " not ready within 180 s; see " + logs[i]);
        }

        void awaitAllReady() throws InterruptedException {
            for (int i = 0; i < processes.length; i++) {
                awaitReady(i);
            }
        }

        /** SIGTERM, as Kubernetes stops a pod, and wait for the exit. */
        void stop(int i) throws InterruptedException {
            memory.put("instance " + i, ProcessMemory.describe(processes[i].pid()));
            long signalled = act(i, "SIGTERM");
            processes[i].destroy();
            if (!processes[i].waitFor(60, TimeUnit.SECONDS)) {
                processes[i].destroyForcibly().waitFor();
            }
            act(i, "exited " + (System.currentTimeMillis() - signalled) + " ms after SIGTERM");
        }

        /**
         * Logs what happened to instance {@code i} with the wall-clock time, so that a restart's steps can be matched
         * with the instances' own logs (bench/scripts/restart_timeline.py); returns that time.
         */
        private long act(int i, String what) {
            long now = System.currentTimeMillis();
            log.accept(String.format(
                    "[%s] %s instance %d: %s", variant, CLOCK.format(Instant.ofEpochMilli(now)), i, what));
            return now;
        }

        /** SIGKILL: no goodbye to the group, the open transaction left to time out. */
        void kill(int i) throws InterruptedException {
            processes[i].destroyForcibly().waitFor();
        }

        Map<String, String> memory() {
            Map<String, String> rss = new HashMap<>();
            for (int i = 0; i < processes.length; i++) {
                if (processes[i] != null && processes[i].isAlive()) {
                    rss.put("instance " + i, ProcessMemory.describe(processes[i].pid()));
                }
            }
            return rss;
        }

        void stopAll() {
            for (Process process : processes) {
                if (process != null) {
                    process.destroyForcibly();
                }
            }
        }
    }
}
