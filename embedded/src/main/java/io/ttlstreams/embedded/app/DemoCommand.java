package io.ttlstreams.embedded.app;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Updates.set;
import static com.mongodb.client.model.Updates.unset;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import io.ttlstreams.app.CommandExtension;
import io.ttlstreams.app.ConfigOverrides;
import io.ttlstreams.app.TtlStreamsCli;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.rules.Deadlines;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.apache.kafka.common.config.ConfigException;
import org.bson.Document;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ttl-streams demo}: starts the embedded pipeline with the bundled configuration, writes a
 * small workload through the MongoDB driver (documents due in a few seconds, some renewed, one whose
 * TTL field is removed, one deleted by hand, one with a Cosmos-style per-document ttl) and reports
 * when each document actually disappeared from MongoDB.
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        description = {
            "Start the embedded pipeline, write a small workload and report what expired and when.",
            "Reads its configuration as run does: --config (default: the bundled one), then TTL_STREAMS_* environment"
                    + " variables, then --set; e.g. --set embedded.kafka.port=0 when port 9092 is taken."
        },
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {
            "0:every document expired on time and the others survived",
            "1:a document did not behave as expected",
            "2:invalid configuration or arguments, e.g. a port of the embedded stack in use"
        })
public final class DemoCommand implements CommandExtension {

    private static final Duration POLL = Duration.ofMillis(50);

    @Option(
            names = "--documents",
            paramLabel = "N",
            defaultValue = "6",
            description = "Plain expiring documents to write (default: ${DEFAULT-VALUE}).")
    private int documents;

    @Option(
            names = "--config",
            paramLabel = "FILE",
            description = "A properties file instead of the bundled configuration; the workload writes to app.sessions"
                    + " (expireAt) and app.events (last-modified, ttl), so its rules should cover those.")
    private Path config;

    @Mixin
    private ConfigOverrides overrides;

    @Spec
    private CommandSpec spec;

    /** What the demo expects of one document, and what happened to it. */
    private static final class Tracked {
        final String collection;
        final String id;
        final String story;
        Instant deadline; // null: must survive
        Instant goneAt;

        Tracked(String collection, String id, String story, Instant deadline) {
            this.collection = collection;
            this.id = id;
            this.story = story;
            this.deadline = deadline;
        }
    }

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        TtlStreamsConfig ttlConfig;
        try {
            ttlConfig = ConfigOverrides.warned(overrides.load(config));
        } catch (ConfigException e) {
            return fail(e.getMessage());
        }
        out.println("ttl-streams demo: starting the embedded pipeline...");
        EmbeddedPipeline started;
        try {
            started = EmbeddedPipeline.start(ttlConfig);
        } catch (ConfigException e) {
            return fail(e.getMessage()); // a port in use, or ttl.http.port taken
        }
        try (EmbeddedPipeline pipeline = started;
                MongoClient client = MongoClients.create(pipeline.stack().mongoConnectionString())) {
            LocalStackRuntime.print(out, pipeline);
            out.println("ttl-streams ready");
            MongoCollection<Document> sessions = client.getDatabase("app").getCollection("sessions");
            MongoCollection<Document> events = client.getDatabase("app").getCollection("events");
            List<Tracked> tracked = writeWorkload(sessions, events, out);
            watch(client, tracked);
            return report(tracked, out);
        }
    }

    /** Prints {@code message} as one line on stderr; the exit code of bad input. */
    private int fail(String message) {
        spec.commandLine().getErr().println("ttl-streams demo: " + message);
        return TtlStreamsCli.EXIT_BAD_INPUT;
    }

    private List<Tracked> writeWorkload(
            MongoCollection<Document> sessions, MongoCollection<Document> events, PrintStream out)
            throws InterruptedException {
        Instant start = Instant.now();
        List<Tracked> tracked = new ArrayList<>();
        for (int i = 1; i <= documents; i++) {
            Instant deadline = start.plusMillis(2_000 + 500L * i);
            sessions.insertOne(new Document("_id", "session-" + i).append("expireAt", Date.from(deadline)));
            tracked.add(new Tracked("sessions", "session-" + i, "expireAt in " + (2_000 + 500 * i) + " ms", deadline));
        }
        Tracked renewed = new Tracked("sessions", "renewed", "due in 3 s, renewed to 7 s", start.plusSeconds(3));
        Tracked untimed = new Tracked("sessions", "untimed", "due in 3 s, expireAt removed", start.plusSeconds(3));
        Tracked byHand = new Tracked("sessions", "by-hand", "due in 4 s, deleted by hand at 1 s", start.plusSeconds(4));
        Tracked cosmos = new Tracked("events", "event-1", "last-modified, per-document ttl 5 s", null);
        for (Tracked t : List.of(renewed, untimed, byHand)) {
            sessions.insertOne(new Document("_id", t.id).append("expireAt", Date.from(t.deadline)));
            tracked.add(t);
        }
        Instant written = Instant.now();
        events.insertOne(new Document("_id", cosmos.id).append("ttl", 5));
        // last-modified counts from the change event's time, its wallTime (or the record's, if later), which is
        // no earlier than this write was sent: so the ttl counted from here is the earliest correct deadline.
        cosmos.deadline = written.plusSeconds(5);
        tracked.add(cosmos);
        out.printf("wrote %d documents; renewing, unsetting and deleting in 1 s...%n", tracked.size());
        Thread.sleep(1_000);
        renewed.deadline = start.plusSeconds(7);
        sessions.updateOne(eq("_id", renewed.id), set("expireAt", Date.from(renewed.deadline)));
        sessions.updateOne(eq("_id", untimed.id), unset("expireAt"));
        untimed.deadline = null;
        sessions.deleteOne(eq("_id", byHand.id));
        byHand.deadline = null;
        byHand.goneAt = Instant.now();
        return tracked;
    }

    /** Polls MongoDB until every expiring document is gone, or 10 s after the last deadline. */
    private static void watch(MongoClient client, List<Tracked> tracked) throws InterruptedException {
        Instant lastDeadline = tracked.stream()
                .filter(t -> t.deadline != null)
                .map(t -> t.deadline)
                .max(Instant::compareTo)
                .orElseThrow();
        Instant giveUp = lastDeadline.plusSeconds(10);
        while (Instant.now().isBefore(giveUp)) {
            boolean pending = false;
            for (Tracked t : tracked) {
                if (t.goneAt == null) {
                    boolean present = client.getDatabase("app")
                                    .getCollection(t.collection)
                                    .countDocuments(eq("_id", t.id))
                            > 0;
                    if (!present) {
                        t.goneAt = Instant.now();
                    } else if (t.deadline != null) {
                        pending = true;
                    }
                }
            }
            if (!pending && Instant.now().isAfter(lastDeadline.plusSeconds(2))) {
                return;
            }
            Thread.sleep(POLL.toMillis());
        }
    }

    private static String format(Instant instant) {
        return instant == null ? "-" : Deadlines.format(instant);
    }

    private static int report(List<Tracked> tracked, PrintStream out) {
        out.printf(
                "%n%-10s %-40s %-26s %-26s %s%n", "document", "story", "deadline", "gone from MongoDB at", "verdict");
        int failures = 0;
        for (Tracked t : tracked) {
            String verdict;
            if (t.story.contains("by hand")) {
                verdict = "deleted by hand; no expiry needed";
            } else if (t.deadline == null) {
                verdict = t.goneAt == null ? "survived, as it should" : "WRONG: deleted";
            } else if (t.goneAt == null) {
                verdict = "WRONG: still there";
            } else {
                long lag = Duration.between(t.deadline, t.goneAt).toMillis();
                verdict = lag < 0 ? "WRONG: deleted " + -lag + " ms early" : "expired " + lag + " ms after deadline";
            }
            if (verdict.startsWith("WRONG")) {
                failures++;
            }
            out.printf("%-10s %-40s %-26s %-26s %s%n", t.id, t.story, format(t.deadline), format(t.goneAt), verdict);
        }
        out.println(
                failures == 0
                        ? "demo: every document expired on time and the others survived"
                        : "demo: " + failures + " document(s) did not behave as expected");
        return failures == 0 ? 0 : 1;
    }
}
