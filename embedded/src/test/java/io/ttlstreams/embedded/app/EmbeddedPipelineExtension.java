package io.ttlstreams.embedded.app;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import io.ttlstreams.app.TtlStreamsApp;
import io.ttlstreams.app.TtlStreamsCli;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.embedded.TimeoutDefaults;
import io.ttlstreams.embedded.TopicReader;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.streams.StreamsConfig;
import org.bson.Document;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The embedded pipeline of an integration test (broker, Connect with the MongoDB connectors, the MongoDB stand-in and
 * the processor, on free ports), started and stopped for it. Registered with {@code @RegisterExtension} on a static
 * field, one pipeline serves every test of the class; on an instance field of a class with the default per-method
 * lifecycle, each test gets a pipeline of its own (for tests that break it).
 *
 * <p>Start-up and shutdown are bounded by the configured lifecycle-method timeout ({@link TimeoutDefaults}), which
 * JUnit does not apply to extensions. Further processor instances get the running processor's settings, so they sign
 * with the same key the stack's sink guard verifies, and a state directory inside the stack's data directory, which
 * is deleted with the stack.
 */
public final class EmbeddedPipelineExtension
        implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

    private final Map<String, String> settings;
    private final List<Watch> watches;
    private final AtomicInteger files = new AtomicInteger();
    private boolean perClass;
    private Map<String, String> running;
    private EmbeddedPipeline pipeline;
    private MongoClient mongo;
    private TopicReader deletes;

    /**
     * What watches a pipeline from before it starts until after it stops, such as a log of the broker's decisions: one
     * extension that orders both, so that a test registers one extension, not two whose order matters.
     */
    public interface Watch {
        /** Called before the pipeline starts. */
        void beforeStart();

        /** Called once the pipeline has stopped. */
        void afterStop();
    }

    private EmbeddedPipelineExtension(Map<String, String> settings, List<Watch> watches) {
        this.settings = onFreePorts(settings);
        this.watches = List.copyOf(watches);
    }

    /**
     * A pipeline started with these settings (rules, {@value EmbeddedOptions#EMBEDDED_PARTITIONS_CONFIG}, any
     * processor option), the embedded MongoDB, Kafka and Connect on free ports.
     */
    public static EmbeddedPipelineExtension with(Map<String, String> settings) {
        return new EmbeddedPipelineExtension(settings, List.of());
    }

    /** This pipeline with one more setting ({@code key} set to {@code value}). */
    public EmbeddedPipelineExtension and(String key, String value) {
        Map<String, String> more = new HashMap<>(settings);
        more.put(key, value);
        return new EmbeddedPipelineExtension(more, watches);
    }

    /** This pipeline, watched by {@code watch} from before each start until after each stop. */
    public EmbeddedPipelineExtension watchedBy(Watch watch) {
        List<Watch> more = new ArrayList<>(watches);
        more.add(watch);
        return new EmbeddedPipelineExtension(settings, more);
    }

    private static Map<String, String> onFreePorts(Map<String, String> settings) {
        Map<String, String> all = new HashMap<>(settings);
        all.putIfAbsent(EmbeddedOptions.EMBEDDED_MONGODB_PORT_CONFIG, "0");
        all.putIfAbsent(EmbeddedOptions.EMBEDDED_KAFKA_PORT_CONFIG, "0");
        all.putIfAbsent(EmbeddedOptions.EMBEDDED_CONNECT_PORT_CONFIG, "0");
        return Map.copyOf(all);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        perClass = true;
        start(context);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (!perClass) {
            start(context);
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (!perClass) {
            stop(context);
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        stop(context);
    }

    private void start(ExtensionContext context) {
        watches.forEach(Watch::beforeStart);
        running = settings;
        pipeline = assertTimeoutPreemptively(
                TimeoutDefaults.lifecycle(context),
                () -> EmbeddedPipeline.start(new TtlStreamsConfig(settings)),
                "start-up of the embedded pipeline");
        mongo = MongoClients.create(pipeline.stack().mongoConnectionString());
    }

    private void stop(ExtensionContext context) {
        try {
            assertTimeoutPreemptively(
                    TimeoutDefaults.lifecycle(context), this::close, "shutdown of the embedded pipeline");
        } finally {
            watches.forEach(Watch::afterStop);
        }
    }

    private void close() {
        if (deletes != null) {
            deletes.close();
            deletes = null;
        }
        if (mongo != null) {
            mongo.close();
            mongo = null;
        }
        if (pipeline != null) {
            pipeline.close();
            pipeline = null;
        }
    }

    /** The running pipeline. */
    public EmbeddedPipeline pipeline() {
        if (pipeline == null) {
            throw new IllegalStateException("The embedded pipeline is not running");
        }
        return pipeline;
    }

    /** A MongoDB client on the stand-in. */
    public MongoClient mongo() {
        pipeline();
        return mongo;
    }

    /** A collection of the stand-in. */
    public MongoCollection<Document> collection(Namespace namespace) {
        return mongo().getDatabase(namespace.database()).getCollection(namespace.collection());
    }

    /** The reader of the delete topic, from its start, shared by every test of the pipeline. */
    public TopicReader deletes() {
        if (deletes == null) {
            deletes = new TopicReader(
                    pipeline().stack().bootstrapServers(), pipeline.stack().deleteTopic());
        }
        return deletes;
    }

    /** A probe of {@code namespace}'s expiries, reading {@link #deletes()}. */
    ExpiryProbe probe(Namespace namespace) {
        return new ExpiryProbe(mongo(), namespace, deletes(), this::processor);
    }

    private TtlStreamsApp processor() {
        return pipeline().processor();
    }

    /**
     * Restarts the processor with {@code settings} (on free ports, like the first ones) unless it runs with them
     * already.
     */
    public void runWith(Map<String, String> settings) throws InterruptedException {
        Map<String, String> next = onFreePorts(settings);
        if (!next.equals(running)) {
            pipeline().restartProcessor(new TtlStreamsConfig(next));
            running = next;
        }
    }

    /** The running processor's settings, pointed at the stack, as text. */
    public Map<String, String> processorSettings() {
        Map<String, String> props = new HashMap<>();
        pipeline().processorConfig().originals().forEach((key, value) -> props.put(key, String.valueOf(value)));
        return props;
    }

    /**
     * The settings of a further processor instance: the running one's (its broker, application and signing key), with
     * a state directory of its own.
     */
    public Map<String, String> instanceSettings() {
        Map<String, String> props = processorSettings();
        props.put(StreamsConfig.STATE_DIR_CONFIG, newPath("instance-state-", "").toString());
        return props;
    }

    /** Writes {@code settings} to a new properties file for {@code ttl-streams --config}. */
    public Path propertiesFile(Map<String, String> settings) throws IOException {
        Properties props = new Properties();
        props.putAll(settings);
        Path file = newPath("processor-", ".properties");
        try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            props.store(writer, null);
        }
        return file;
    }

    /**
     * Starts {@code ttl-streams run --config FILE} with {@code settings} and {@code options} in a JVM of its own, as an
     * operator starts an instance, its output and errors going to {@code log}.
     */
    public Process startRun(Map<String, String> settings, Path log, String... options) throws IOException {
        return startRun(propertiesFile(settings), log, options);
    }

    /**
     * Starts {@code ttl-streams run --config config} and {@code options} in a JVM of its own, its output and errors
     * going to {@code log}: an instance against any cluster, the pipeline's or another.
     */
    public static Process startRun(Path config, Path log, String... options) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                TtlStreamsCli.class.getName(),
                "run",
                "--config",
                config.toString()));
        command.addAll(List.of(options));
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
    }

    /** A path not used yet, inside the stack's data directory. */
    private Path newPath(String prefix, String suffix) {
        return pipeline().stack().dataDir().resolve(prefix + files.incrementAndGet() + suffix);
    }
}
