package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * MongoDB's {@code failCommand} fail point, set with {@code configureFailPoint} on the {@code admin} database as
 * MongoDB's test hook is (a server started with {@code enableTestCommands=1}; the stand-in always has it), so that
 * anything speaking the wire protocol can make the stand-in fail as a production replica set fails.
 *
 * <p>Behaviour as MongoDB's server implements it ({@code src/mongo/db/commands.cpp},
 * {@code CommandHelpers::shouldActivateFailCommandFailPoint} and {@code evaluateFailCommandFailPoint}; the write-concern
 * error in {@code service_entry_point_common.cpp}):
 *
 * <ul>
 *   <li>{@code mode}: {@code "alwaysOn"}, {@code {times: N}} (the next N commands it applies to, counted atomically
 *       across connections, then off), {@code {skip: N}} (on after the next N), {@code "off"}. The reply is
 *       {@code {count: <times the fail point fired so far>, ok: 1}}.</li>
 *   <li>It applies to exactly the commands named in {@code data.failCommands}, by the name the wire carries
 *       ({@code delete}, {@code getMore}, ...), and, with {@code data.appName}, only to connections whose handshake
 *       named that application. {@code configureFailPoint} itself is never failed. Nothing else is exempt, as on
 *       MongoDB: {@code hello} or {@code isMaster} fail only when named, as drivers' monitoring tests name them.</li>
 *   <li>In MongoDB's order: {@code blockConnection} delays the command {@code blockTimeMS}, then
 *       {@code closeConnection} closes the connection without a reply, then {@code errorCode} fails the command with
 *       {@code "Failing command via 'failCommand' failpoint"}; a fail point with only {@code writeConcernError} lets
 *       the command run and appends that document to its reply ({@code {ok: 1, n: .., writeConcernError: {...}}}).</li>
 *   <li>{@code errorLabels}, when given, replace the labels the server would attach ({@code []} removes them); when
 *       absent, {@link ErrorLabels} attaches MongoDB's own.</li>
 * </ul>
 *
 * <p>What the stand-in does not do: {@code threadName}, {@code namespace}, {@code errorExtraInfo} and the
 * {@code activationProbability} mode are refused with NotImplemented rather than ignored; {@code failInternalCommands}
 * is accepted and means nothing (the stand-in has no internal clients). A blocked command holds the netty event loop
 * serving its connection (the backend is synchronous): other connections that share the loop wait as well, where
 * MongoDB blocks only the one operation's thread. The stand-in's loops are many, one per connection in practice
 * (see {@code EmbeddedMongo}), so this rarely shows; {@code blockTimeMS} is bounded to {@value #MAX_BLOCK_MS} ms.
 */
final class FailCommand {

    /** The only fail point the stand-in has. */
    static final String NAME = "failCommand";
    /** The admin command that configures it. */
    static final String CONFIGURE = "configureFailPoint";
    /** MongoDB's message for a command failed by the fail point. */
    static final String MESSAGE = "Failing command via 'failCommand' failpoint";

    static final long MAX_BLOCK_MS = 600_000;
    private static final int MAX_COMMANDS = 1_000;
    private static final Set<String> DATA_FIELDS = Set.of(
            "failCommands",
            "errorCode",
            "errorLabels",
            "closeConnection",
            "blockConnection",
            "blockTimeMS",
            "writeConcernError",
            "appName",
            "failInternalCommands");
    private static final AttributeKey<String> APP_NAME = AttributeKey.valueOf("ttl-streams-standin-app-name");

    /** What fails, how often: null when off. */
    private final AtomicReference<Armed> armed = new AtomicReference<>();
    /** MongoDB's {@code timesEntered}: every firing since start. */
    private final AtomicLong entered = new AtomicLong();

    /** What the fail point does to one command before it runs. */
    record Firing(long blockMillis, boolean closeConnection, MongoServerError error, List<String> labels) {

        /** Blocks the calling thread (the connection's event loop) for {@code blockMillis}. */
        void block() {
            if (blockMillis <= 0) {
                return;
            }
            try {
                TimeUnit.MILLISECONDS.sleep(blockMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // shutting down: answer at once
            }
        }
    }

    private record Settings(
            Set<String> commands,
            Integer errorCode,
            List<String> labels,
            boolean closeConnection,
            long blockMillis,
            Document writeConcernError,
            String appName) {

        boolean failsBeforeRunning() {
            return closeConnection || blockMillis >= 0 || errorCode != null;
        }
    }

    private record Armed(Settings settings, AtomicLong skip, AtomicLong remaining) {

        /** Takes one activation if the mode has one left: {@code skip} first, then {@code times}. */
        boolean take() {
            if (skip.get() > 0 && skip.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0) {
                return false;
            }
            return remaining.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0;
        }
    }

    /** True for {@code configureFailPoint}. */
    static boolean answers(String command) {
        return CONFIGURE.equals(command);
    }

    /** Remembers the application a connection's handshake named ({@code client.application.name}), for appName. */
    void handshake(Channel channel, Document hello) {
        if (channel != null
                && hello.get("client") instanceof Document client
                && client.get("application") instanceof Document application
                && application.get("name") instanceof String name) {
            channel.attr(APP_NAME).set(name);
        }
    }

    /** Answers {@code configureFailPoint}. */
    Document configure(String databaseName, Document query) {
        if (!"admin".equals(databaseName)) {
            throw new MongoServerError(
                    ErrorCodes.UNAUTHORIZED,
                    "Unauthorized",
                    CONFIGURE + " may only be run against the admin database.");
        }
        Object name = query.get(CONFIGURE);
        if (!NAME.equals(name)) {
            throw new MongoServerError(
                    ErrorCodes.FAIL_POINT_SET_FAILED,
                    "FailPointSetFailed",
                    name + " not found (the MongoDB stand-in has only the " + NAME + " fail point)");
        }
        Object mode = query.get("mode");
        Armed next;
        if ("off".equals(mode)) {
            next = null;
        } else if ("alwaysOn".equals(mode)) {
            next = new Armed(settings(query.get("data")), new AtomicLong(), new AtomicLong(Long.MAX_VALUE));
        } else if (mode instanceof Document counted && counted.size() == 1 && counted.containsKey("times")) {
            next = new Armed(
                    settings(query.get("data")),
                    new AtomicLong(),
                    new AtomicLong(count(counted.get("times"), "times")));
        } else if (mode instanceof Document counted && counted.size() == 1 && counted.containsKey("skip")) {
            next = new Armed(
                    settings(query.get("data")),
                    new AtomicLong(count(counted.get("skip"), "skip")),
                    new AtomicLong(Long.MAX_VALUE));
        } else if (mode instanceof Document other && other.containsKey("activationProbability")) {
            throw new MongoServerError(
                    ErrorCodes.NOT_IMPLEMENTED,
                    "NotImplemented",
                    "the MongoDB stand-in's fail point has no activationProbability mode: use alwaysOn, times or skip");
        } else {
            throw new MongoServerError(
                    ErrorCodes.BAD_VALUE,
                    "BadValue",
                    "'mode' must be one of 'off', 'alwaysOn', {times: N} or {skip: N}, got " + mode);
        }
        long count = entered.get();
        armed.set(next);
        return new Document("count", count).append("ok", 1.0);
    }

    /**
     * What the fail point does to {@code command} before it runs, taking one activation; null when it does nothing
     * to it (off, another command, another application, or a fail point with only a write-concern error).
     */
    Firing beforeRunning(Channel channel, String command) {
        Armed current = armed.get();
        if (current == null
                || !current.settings().failsBeforeRunning()
                || !applies(current.settings(), channel, command)
                || !current.take()) {
            return null;
        }
        entered.incrementAndGet();
        Settings settings = current.settings();
        MongoServerError error = settings.errorCode() == null
                ? null
                : new MongoServerError(settings.errorCode(), ErrorCodes.name(settings.errorCode()), MESSAGE);
        return new Firing(settings.blockMillis(), settings.closeConnection(), error, settings.labels());
    }

    /**
     * Appends the fail point's write-concern error to the reply of {@code command}, which ran, taking one activation;
     * the labels that then replace the server's, or null for the server's own.
     */
    List<String> afterRunning(Channel channel, String command, Document reply) {
        Armed current = armed.get();
        if (current == null
                || current.settings().writeConcernError() == null
                || !applies(current.settings(), channel, command)
                || !current.take()) {
            return null;
        }
        entered.incrementAndGet();
        reply.put("writeConcernError", current.settings().writeConcernError().cloneDeeply());
        return current.settings().labels();
    }

    private static boolean applies(Settings settings, Channel channel, String command) {
        if (CONFIGURE.equals(command) || !settings.commands().contains(command)) {
            return false;
        }
        return settings.appName() == null
                || (channel != null
                        && settings.appName().equals(channel.attr(APP_NAME).get()));
    }

    private static Settings settings(Object data) {
        if (!(data instanceof Document fields)) {
            throw badValue("'data' must be a document naming failCommands, got " + data);
        }
        for (String field : fields.keySet()) {
            if (!DATA_FIELDS.contains(field)) {
                throw new MongoServerError(
                        ErrorCodes.NOT_IMPLEMENTED,
                        "NotImplemented",
                        "the MongoDB stand-in's failCommand does not support data." + field + " (it supports "
                                + DATA_FIELDS + ")");
            }
        }
        if (!(fields.get("failCommands") instanceof List<?> names) || names.isEmpty() || names.size() > MAX_COMMANDS) {
            throw badValue("data.failCommands must be an array of 1 to " + MAX_COMMANDS + " command names");
        }
        Set<String> commands = new HashSet<>();
        for (Object commandName : names) {
            if (!(commandName instanceof String string)) {
                throw badValue("data.failCommands must hold command names (strings), got " + commandName);
            }
            commands.add(string);
        }
        Integer errorCode = null;
        if (fields.containsKey("errorCode")) {
            long code = count(fields.get("errorCode"), "data.errorCode");
            if (code > Integer.MAX_VALUE) {
                throw badValue("data.errorCode must be a 32-bit integer, got " + code);
            }
            errorCode = (int) code;
        }
        List<String> labels = null;
        if (fields.containsKey("errorLabels")) {
            if (!(fields.get("errorLabels") instanceof List<?> given)) {
                throw badValue("data.errorLabels must be an array of strings");
            }
            labels = new ArrayList<>();
            for (Object label : given) {
                if (!(label instanceof String string)) {
                    throw badValue("data.errorLabels must be an array of strings, got " + label);
                }
                labels.add(string);
            }
            labels = List.copyOf(labels);
        }
        long blockMillis = -1;
        if (Boolean.TRUE.equals(flag(fields, "blockConnection"))) {
            if (!fields.containsKey("blockTimeMS")) {
                throw new MongoServerError(
                        ErrorCodes.INVALID_OPTIONS,
                        "InvalidOptions",
                        "must specify 'blockTimeMS' when 'blockConnection' is true");
            }
            blockMillis = count(fields.get("blockTimeMS"), "data.blockTimeMS");
            if (blockMillis > MAX_BLOCK_MS) {
                throw badValue("data.blockTimeMS may be at most " + MAX_BLOCK_MS + " on the MongoDB stand-in");
            }
        }
        Document writeConcernError = null;
        if (fields.containsKey("writeConcernError")) {
            if (!(fields.get("writeConcernError") instanceof Document given)
                    || !(given.get("code") instanceof Number)
                    || !(given.get("errmsg") instanceof String)) {
                throw badValue("data.writeConcernError must be a document with an integer code and a string errmsg");
            }
            writeConcernError = given.cloneDeeply();
        }
        Object appName = fields.get("appName");
        if (appName != null && !(appName instanceof String)) {
            throw badValue("data.appName must be a string");
        }
        Settings settings = new Settings(
                Set.copyOf(commands),
                errorCode,
                labels,
                Boolean.TRUE.equals(flag(fields, "closeConnection")),
                blockMillis,
                writeConcernError,
                (String) appName);
        if (!settings.failsBeforeRunning() && writeConcernError == null) {
            throw badValue(
                    "data must say how to fail: errorCode, closeConnection, blockConnection or" + " writeConcernError");
        }
        return settings;
    }

    private static Boolean flag(Document fields, String name) {
        Object value = fields.get(name);
        if (value != null && !(value instanceof Boolean)) {
            throw badValue("data." + name + " must be a boolean");
        }
        return (Boolean) value;
    }

    /** A non-negative whole number, as BSON may carry it (int, long, or a double without a fraction). */
    private static long count(Object value, String what) {
        if (value instanceof Integer || value instanceof Long) {
            long n = ((Number) value).longValue();
            if (n >= 0) {
                return n;
            }
        } else if (value instanceof Double d && d >= 0 && d == Math.rint(d) && d <= Integer.MAX_VALUE) {
            return d.longValue();
        }
        throw badValue(what + " must be a non-negative integer, got " + value);
    }

    private static MongoServerError badValue(String message) {
        return new MongoServerError(ErrorCodes.BAD_VALUE, "BadValue", message);
    }
}
