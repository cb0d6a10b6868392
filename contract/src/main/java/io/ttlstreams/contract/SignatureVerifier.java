package io.ttlstreams.contract;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks a delete command's signature headers against the keys a sink trusts: the current key and, while keys are
 * rotated, the previous one. The key id header picks the key; a signature by any other key, a changed key or value
 * byte, or a missing header is refused with the reason. Instances are immutable and thread-safe.
 */
public final class SignatureVerifier {

    private final Map<String, SigningKey> keysById = new LinkedHashMap<>();

    /**
     * @param keys the trusted keys, at least one
     * @throws IllegalArgumentException when {@code keys} is empty
     */
    public SignatureVerifier(Collection<SigningKey> keys) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("A signature verifier needs at least one key");
        }
        keys.forEach(key -> keysById.put(key.id(), key));
    }

    /** The ids of the trusted keys. */
    public List<String> keyIds() {
        return List.copyOf(keysById.keySet());
    }

    /**
     * Checks that {@code signature} is the signature of {@code key} and {@code value} by the trusted key that
     * {@code keyId} names.
     *
     * @param key the record key's bytes
     * @param value the record value's bytes
     * @param keyId the {@value SigningKey#KEY_ID_HEADER} header's bytes, or {@code null} when absent
     * @param signature the {@value SigningKey#SIGNATURE_HEADER} header's bytes, or {@code null} when absent
     * @throws InvalidDeleteCommandException saying why the signature does not hold
     */
    public void verify(byte[] key, byte[] value, byte[] keyId, byte[] signature) {
        if (signature == null) {
            throw new InvalidDeleteCommandException(
                    SinkRefusal.SIGNATURE,
                    "unsigned: the record has no " + SigningKey.SIGNATURE_HEADER
                            + " header (only the ttl-streams processor, with ttl.command.signing.key, signs commands)");
        }
        if (keyId == null) {
            throw new InvalidDeleteCommandException(
                    SinkRefusal.SIGNATURE,
                    "the record has a signature but no " + SigningKey.KEY_ID_HEADER + " header naming its key");
        }
        String id = new String(keyId, StandardCharsets.US_ASCII);
        SigningKey trusted = keysById.get(id);
        if (trusted == null) {
            throw new InvalidDeleteCommandException(
                    SinkRefusal.SIGNATURE,
                    "signed with key id '" + printable(id) + "', which this sink does not trust (it trusts " + keyIds()
                            + ")");
        }
        if (!trusted.verifies(key, value, signature)) {
            throw new InvalidDeleteCommandException(
                    SinkRefusal.SIGNATURE,
                    "bad signature for key id " + id
                            + ": the key or value was changed after signing, or signed with another secret");
        }
    }

    /** At most 32 characters with control characters escaped, so that a forged header cannot garble the message. */
    private static String printable(String text) {
        StringBuilder out = new StringBuilder();
        text.codePoints().limit(32).forEach(c -> {
            if (Character.isISOControl(c)) {
                out.append(String.format("\\u%04x", c));
            } else {
                out.appendCodePoint(c);
            }
        });
        return text.length() > 32 ? out + "..." : out.toString();
    }
}
