package io.ttlstreams.guard;

import io.ttlstreams.contract.DeleteCommand;
import io.ttlstreams.contract.InvalidDeleteCommandException;
import io.ttlstreams.contract.NamespacePattern;
import io.ttlstreams.contract.SignatureVerifier;
import io.ttlstreams.contract.SigningKey;
import io.ttlstreams.contract.SinkRefusal;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.transforms.Transformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka Connect transformation for the MongoDB delete sink that lets a record through only when it is a delete
 * command the ttl-streams processor made:
 *
 * <ol>
 *   <li>signed with a trusted key ({@code signing.key}, or {@code signing.previous.key} while keys rotate), over
 *       the exact key and value bytes (see {@link SigningKey});</li>
 *   <li>in the grammar the processor emits ({@link DeleteCommand#parse}): the document key as a literal, then only
 *       {@code $eq}, {@code $exists} and a rule's partial filter, never {@code $expr}, {@code $regex}, an empty
 *       filter or an operator in place of the {@code _id};</li>
 *   <li>for a namespace of {@code allowed.namespaces};</li>
 *   <li>a mark command ({@code "update": {"$set": {field: deadline}}}) only setting its namespace's field of {@code
 *       mark.fields};</li>
 *   <li>due: its deadline no later than the sink's clock plus {@code clock.skew.tolerance.ms};</li>
 *   <li>fresh: issued ({@link DeleteCommand#issuedAtMillis()}, covered by the signature) no more than {@code
 *       command.max.age.ms} before the sink's clock, and no more than {@code clock.skew.tolerance.ms} after it; a
 *       command without an issue time is refused.</li>
 * </ol>
 *
 * Anything else throws a {@link DataException} with the reason, never passes: with the sink's {@code
 * errors.tolerance=all} and dead-letter topic, Connect parks the record there with the reason in its {@code
 * __connect.errors.exception.message} header, and goes on with the next one. The record that passes is returned
 * unchanged.
 *
 * <p>The sink must hand over the headers as bytes: {@code header.converter=}{@code
 * org.apache.kafka.connect.converters.ByteArrayConverter}. Keys and values may be strings ({@code StringConverter},
 * as the sink is configured) or bytes.
 *
 * @param <R> the record type; on the sink connector, {@code SinkRecord}
 */
public final class DeleteCommandGuard<R extends ConnectRecord<R>> implements Transformation<R> {

    private static final Logger log = LoggerFactory.getLogger(DeleteCommandGuard.class);

    private final Clock clock;
    private SinkGuardConfig config;

    /** The guard on the system clock, as Connect instantiates it. */
    public DeleteCommandGuard() {
        this(Clock.systemUTC());
    }

    /** The guard on {@code clock} (tests). */
    DeleteCommandGuard(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * @throws org.apache.kafka.common.config.ConfigException naming the option when a setting is bad, or when no
     *     signing key is set without {@code allow.unsigned=true}
     */
    @Override
    public void configure(Map<String, ?> props) {
        config = new SinkGuardConfig(props);
        log.info(
                "Delete-command guard: trusted key ids {}, unsigned commands {}, allowed namespaces {}, clock skew"
                        + " tolerance {} ms, commands valid for {} ms",
                config.verifier().map(SignatureVerifier::keyIds).orElse(List.of()),
                config.allowUnsigned() ? "allowed" : "refused",
                config.allowedNamespaces(),
                config.clockSkewToleranceMs(),
                config.commandMaxAgeMs());
    }

    /**
     * @return {@code record}, unchanged, when it passes every check
     * @throws DataException with the reason, starting "Delete command refused by the sink guard: [label] " with the
     *     {@link SinkRefusal} label, otherwise
     */
    @Override
    public R apply(R record) {
        if (config == null) {
            throw new IllegalStateException("The delete-command guard is not configured");
        }
        try {
            check(record);
            return record;
        } catch (InvalidDeleteCommandException refused) {
            throw new DataException(refused.refusal().reason(refused.getMessage()));
        }
    }

    private void check(R record) {
        byte[] key = bytes(record.key(), "key");
        byte[] value = bytes(record.value(), "value");
        if (key != null && value != null) {
            verifySignature(record, key, value);
        }
        // Also refuses a record without key or value.
        DeleteCommand command = DeleteCommand.parse(text(key), text(value));
        if (config.allowedNamespaces().stream().noneMatch(allowed -> allowed.matches(command.namespace()))) {
            throw new InvalidDeleteCommandException(
                    SinkRefusal.NAMESPACE,
                    "namespace " + command.namespace() + " is not in "
                            + SinkGuardConfig.ALLOWED_NAMESPACES_CONFIG + " "
                            + config.allowedNamespaces().stream()
                                    .map(NamespacePattern::toString)
                                    .toList());
        }
        if (command.isMark()) {
            checkMarkField(command);
        }
        long now = clock.millis();
        long latest = now + config.clockSkewToleranceMs();
        if (command.deadlineMillis() > latest) {
            throw new InvalidDeleteCommandException(
                    SinkRefusal.NOT_DUE,
                    "the deadline " + Instant.ofEpochMilli(command.deadlineMillis())
                            + " is later than the sink's clock " + Instant.ofEpochMilli(now) + " + "
                            + config.clockSkewToleranceMs() + " ms: a command never deletes before its deadline");
        }
        checkFresh(command, now);
    }

    /** A mark command sets the one field its namespace's rule marks with, and nothing else. */
    private void checkMarkField(DeleteCommand command) {
        String allowed = config.markFields().entrySet().stream()
                .filter(entry -> entry.getKey().matches(command.namespace()))
                .map(Map.Entry::getValue)
                .findFirst()
                .orElse(null);
        if (!command.markField().equals(allowed)) {
            throw new InvalidDeleteCommandException(
                    SinkRefusal.MARK,
                    "the mark command sets '" + command.markField() + "' in " + command.namespace() + ", and "
                            + SinkGuardConfig.MARK_FIELDS_CONFIG + " "
                            + (allowed == null ? "allows no mark there" : "allows only '" + allowed + "'"));
        }
    }

    /** The issue time against the sink's clock: a replay of a recorded command is refused once it is old enough. */
    private void checkFresh(DeleteCommand command, long now) {
        if (command.issuedAtMillis().isEmpty()) {
            throw new InvalidDeleteCommandException(
                    SinkRefusal.NO_ISSUE_TIME,
                    "the command has no issue time (value field '" + DeleteCommand.ISSUED_AT_FIELD
                            + "'), so it could be a replay of any age");
        }
        long issuedAt = command.issuedAtMillis().getAsLong();
        if (issuedAt > now + config.clockSkewToleranceMs()) {
            throw new InvalidDeleteCommandException(
                    SinkRefusal.ISSUED_AHEAD,
                    "the command was issued at " + Instant.ofEpochMilli(issuedAt)
                            + ", later than the sink's clock " + Instant.ofEpochMilli(now) + " + "
                            + config.clockSkewToleranceMs() + " ms (" + SinkGuardConfig.CLOCK_SKEW_TOLERANCE_MS_CONFIG
                            + ")");
        }
        // Subtracting from now cannot overflow for any clock; issuedAt + max age could, for a forged far future.
        if (issuedAt < now - config.commandMaxAgeMs()) {
            throw new InvalidDeleteCommandException(
                    SinkRefusal.STALE,
                    "the command was issued at " + Instant.ofEpochMilli(issuedAt)
                            + ", more than " + SinkGuardConfig.COMMAND_MAX_AGE_MS_CONFIG + "="
                            + config.commandMaxAgeMs()
                            + " ms before the sink's clock " + Instant.ofEpochMilli(now)
                            + ": a stale or replayed command"
                            + " (the processor re-emits an unconfirmed one with a new issue time)");
        }
    }

    private void verifySignature(R record, byte[] key, byte[] value) {
        byte[] signature = header(record, SigningKey.SIGNATURE_HEADER);
        byte[] keyId = header(record, SigningKey.KEY_ID_HEADER);
        if (signature == null && keyId == null && config.allowUnsigned()) {
            return;
        }
        config.verifier()
                .orElseThrow(() -> new InvalidDeleteCommandException(
                        SinkRefusal.SIGNATURE,
                        "the command is signed, but this sink has no " + SinkGuardConfig.SIGNING_KEY_CONFIG
                                + " to verify it with"))
                .verify(key, value, keyId, signature);
    }

    /** A header's bytes; {@code null} when absent. */
    private static byte[] header(ConnectRecord<?> record, String name) {
        List<Header> found = new ArrayList<>();
        record.headers().allWithName(name).forEachRemaining(found::add);
        if (found.isEmpty()) {
            return null;
        }
        if (found.size() > 1) {
            throw new InvalidDeleteCommandException(
                    SinkRefusal.SIGNATURE, "header " + name + " appears " + found.size() + " times");
        }
        Object value = found.get(0).value();
        if (!(value instanceof byte[] bytes)) {
            throw new InvalidDeleteCommandException(
                    SinkRefusal.FORMAT,
                    "header " + name + " reached the guard as "
                            + (value == null ? "null" : value.getClass().getSimpleName())
                            + ", not bytes: set the sink's"
                            + " header.converter=org.apache.kafka.connect.converters.ByteArrayConverter");
        }
        return bytes;
    }

    private static byte[] bytes(Object data, String what) {
        if (data instanceof String text) {
            return text.getBytes(StandardCharsets.UTF_8);
        }
        if (data instanceof byte[] bytes) {
            return bytes;
        }
        if (data == null) {
            return null;
        }
        throw new InvalidDeleteCommandException(
                SinkRefusal.FORMAT,
                "the record " + what + " is a " + data.getClass().getSimpleName()
                        + ", not a string: the sink reads commands with StringConverter");
    }

    private static String text(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    @Override
    public ConfigDef config() {
        return SinkGuardConfig.configDef();
    }

    @Override
    public void close() {}
}
