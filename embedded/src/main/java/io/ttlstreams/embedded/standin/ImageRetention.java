package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.bson.BsonTimestamp;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * How long pre- and post-images are kept: the {@code changeStreamOptions.preAndPostImages.expireAfterSeconds} cluster
 * parameter of MongoDB 6.0, set with {@code setClusterParameter} and read with {@code getClusterParameter} on
 * {@code admin}. {@code "off"} (the default) keeps an image as long as its change is in the history, as MongoDB keeps
 * it as long as its oplog entry; a number of seconds removes it that long after its change, or earlier when the
 * change falls off the history.
 */
final class ImageRetention {

    private static final String PARAMETER = "changeStreamOptions";

    private final Clock clock;
    /** Seconds an image is kept, or null for "off". */
    private volatile Long expireAfterSeconds;

    private volatile BsonTimestamp setAt = new BsonTimestamp(0);

    ImageRetention(Clock clock, Long expireAfterSeconds) {
        this.clock = clock;
        this.expireAfterSeconds = expireAfterSeconds;
    }

    /** The seconds images are kept, or null for "off": what the stand-in's data file keeps. */
    Long expireAfterSeconds() {
        return expireAfterSeconds;
    }

    /** Whether an image of a change made at {@code wallTime} is gone by now. */
    boolean expired(Instant wallTime) {
        Long seconds = expireAfterSeconds;
        return seconds != null && clock.instant().isAfter(wallTime.plus(Duration.ofSeconds(seconds)));
    }

    /** True for the cluster-parameter commands this class answers. */
    static boolean answers(String command) {
        return command.equalsIgnoreCase("setClusterParameter") || command.equalsIgnoreCase("getClusterParameter");
    }

    /** Answers {@code setClusterParameter} or {@code getClusterParameter}, run on {@code admin}. */
    Document handle(String databaseName, String command, Document query, BsonTimestamp now) {
        if (!databaseName.equals("admin")) {
            throw new MongoServerError(13, "Unauthorized", command + " may only be run against the admin database.");
        }
        Document response = command.equalsIgnoreCase("setClusterParameter")
                ? set(query.get(command), now)
                : get(query.get(command));
        response.append("ok", 1.0);
        return response;
    }

    private Document set(Object parameters, BsonTimestamp now) {
        if (!(parameters instanceof Document document)
                || document.size() != 1
                || !(document.get(PARAMETER) instanceof Document options)) {
            throw new MongoServerError(
                    ErrorCodes.BAD_VALUE,
                    "BadValue",
                    "the MongoDB stand-in knows one cluster parameter, " + PARAMETER + ": " + parameters);
        }
        if (!(options.get("preAndPostImages") instanceof Document images)
                || !images.containsKey("expireAfterSeconds")) {
            throw new MongoServerError(
                    ErrorCodes.BAD_VALUE,
                    "BadValue",
                    PARAMETER + " takes {preAndPostImages: {expireAfterSeconds: <seconds> | 'off'}}");
        }
        Object value = images.get("expireAfterSeconds");
        if ("off".equals(value)) {
            expireAfterSeconds = null;
        } else if (value instanceof Number seconds
                && seconds.doubleValue() == seconds.longValue()
                && seconds.longValue() > 0) {
            expireAfterSeconds = seconds.longValue();
        } else {
            throw new MongoServerError(
                    ErrorCodes.BAD_VALUE,
                    "BadValue",
                    "expireAfterSeconds must be a positive number of seconds or 'off', was " + value);
        }
        setAt = now;
        return new Document();
    }

    private Document get(Object names) {
        boolean all = "*".equals(names);
        boolean ours = PARAMETER.equals(names) || (names instanceof List<?> list && list.contains(PARAMETER));
        if (!all && !ours) {
            throw new MongoServerError(ErrorCodes.BAD_VALUE, "BadValue", "Unknown cluster parameter: " + names);
        }
        Long seconds = expireAfterSeconds;
        Document parameter = new Document("_id", PARAMETER)
                .append("clusterParameterTime", setAt)
                .append("preAndPostImages", new Document("expireAfterSeconds", seconds == null ? "off" : seconds));
        return new Document("clusterParameters", List.of(parameter));
    }
}
