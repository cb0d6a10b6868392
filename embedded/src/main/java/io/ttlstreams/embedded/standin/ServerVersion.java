package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.MongoVersion;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The MongoDB release the stand-in plays: what {@code buildInfo} and {@code hello} report (the wire version of each
 * release: 5.0 = 13, 6.0 = 17, 7.0 = 21, 8.0 = 25, as the drivers' wire-version tables give them), and the features of
 * 6.0 a 5.0 server refuses, with the errors it gives:
 *
 * <ul>
 *   <li>{@code fullDocumentBeforeChange} and {@code showExpandedEvents} in {@code $changeStream}: 5.0 parses the stage
 *       strictly, "BSON field '$changeStream.fullDocumentBeforeChange' is an unknown field." (40415).</li>
 *   <li>{@code changeStreamPreAndPostImages} in {@code create}: "BSON field 'create.changeStreamPreAndPostImages' is an
 *       unknown field." (40415), and in {@code collMod}: "unknown option to collMod: changeStreamPreAndPostImages"
 *       (InvalidOptions, 72; 5.0's {@code coll_mod.cpp}).</li>
 *   <li>{@code setClusterParameter} and {@code getClusterParameter}, new in 6.0: "no such command" (59).</li>
 * </ul>
 *
 * The stand-in otherwise behaves alike in every version: newer features (e.g. 8.0's) are not added, nor other 5.0
 * differences played. The error shapes of 5.0 come from its parsers as described; they were not checked against a 5.0
 * server here.
 */
public enum ServerVersion implements MongoVersion {
    V5_0(5, 13),
    V6_0(6, 17),
    V7_0(7, 21),
    V8_0(8, 25);

    /** What the stand-in plays unless told otherwise. */
    public static final ServerVersion DEFAULT = V7_0;

    private final int major;
    private final int wireVersion;

    ServerVersion(int major, int wireVersion) {
        this.major = major;
        this.wireVersion = wireVersion;
    }

    /** The version named {@code value} ({@code "5.0"}, {@code "6.0"}, {@code "7.0"} or {@code "8.0"}). */
    public static ServerVersion of(String value) {
        return Arrays.stream(values())
                .filter(version -> version.configValue().equals(value))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException(
                        "MongoDB version must be one of " + configValues() + ", got " + value));
    }

    /** The names of the versions, as {@link #of} takes them. */
    public static List<String> configValues() {
        return Arrays.stream(values()).map(ServerVersion::configValue).toList();
    }

    /** {@code "7.0"}, for instance. */
    public String configValue() {
        return major + ".0";
    }

    @Override
    public List<Integer> getVersionArray() {
        return List.of(major, 0, 0);
    }

    @Override
    public int getWireVersion() {
        return wireVersion;
    }

    /** Refuses, as this version's server does, a command using what the version lacks. */
    void refuseWhatItLacks(String command, Document query) {
        if (major >= 6) {
            return;
        }
        String name = command.toLowerCase(Locale.ROOT);
        if (name.equals("setclusterparameter") || name.equals("getclusterparameter")) {
            throw new MongoServerError(
                    ErrorCodes.COMMAND_NOT_FOUND, "CommandNotFound", "no such command: '" + command + "'");
        }
        if (name.equals("aggregate")
                && query.get("pipeline") instanceof List<?> pipeline
                && !pipeline.isEmpty()
                && pipeline.get(0) instanceof Document first
                && first.get("$changeStream") instanceof Document stage) {
            for (String field : List.of("fullDocumentBeforeChange", "showExpandedEvents")) {
                if (stage.containsKey(field)) {
                    throw StandInError.unknownField("$changeStream." + field);
                }
            }
        }
        if (name.equals("create") && query.containsKey("changeStreamPreAndPostImages")) {
            throw StandInError.unknownField("create.changeStreamPreAndPostImages");
        }
        if (name.equals("collmod") && query.containsKey("changeStreamPreAndPostImages")) {
            throw new MongoServerError(
                    ErrorCodes.INVALID_OPTIONS,
                    "InvalidOptions",
                    "unknown option to collMod: changeStreamPreAndPostImages");
        }
    }
}
