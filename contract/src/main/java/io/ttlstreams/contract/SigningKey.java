package io.ttlstreams.contract;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A secret that signs delete commands: HMAC-SHA256 over the record's key and value bytes, each preceded by its
 * length as a 4-byte big-endian integer, so that no byte can move from the key to the value (or back) under the
 * same signature.
 *
 * <p>The processor puts the signature in the {@value #SIGNATURE_HEADER} header and the key's {@link #id() id} in
 * {@value #KEY_ID_HEADER}, both as lowercase hex in ASCII; the sink guard checks them with {@link
 * SignatureVerifier}. The id is derived from the secret (the first 8 bytes of its SHA-256), so it can never name
 * another key, and it tells a verifier holding a current and a previous key which one to use.
 *
 * <p>The secret is the UTF-8 bytes of the configured text, at least {@value #MIN_LENGTH_BYTES} of them (e.g. {@code
 * openssl rand -base64 48}). {@link #toString()} shows the id only. Instances are immutable and thread-safe.
 */
public final class SigningKey {

    /** Header holding the signature, 64 lowercase hex characters. */
    public static final String SIGNATURE_HEADER = "ttl.signature";
    /** Header holding the id of the key that made the signature, 16 lowercase hex characters. */
    public static final String KEY_ID_HEADER = "ttl.signature.key.id";
    /** The shortest secret accepted: as long as the HMAC-SHA256 output, so the key is not the weak point. */
    public static final int MIN_LENGTH_BYTES = 32;

    private static final String ALGORITHM = "HmacSHA256";
    private static final HexFormat HEX = HexFormat.of();

    private final SecretKeySpec secret;
    private final String id;
    /**
     * Each thread's {@code Mac}, keyed once: looking the algorithm up and keying it for every command was more than
     * half of signing one (the signed {@code CommandCostBench} profile). {@code doFinal} leaves a {@code Mac} keyed
     * and reset for the next record; a {@code Mac} is not thread-safe, hence one per thread.
     */
    private final ThreadLocal<Mac> macs;

    private SigningKey(byte[] secret) {
        this.secret = new SecretKeySpec(secret, ALGORITHM);
        this.id = HEX.formatHex(sha256(secret), 0, 8);
        this.macs = ThreadLocal.withInitial(this::keyedMac);
    }

    /**
     * The key whose secret is the UTF-8 encoding of {@code secret}.
     *
     * @throws IllegalArgumentException when it is shorter than {@value #MIN_LENGTH_BYTES} bytes, or still an
     *     unresolved config provider reference such as {@code ${file:/secrets/key.properties:key}}
     */
    public static SigningKey of(String secret) {
        Objects.requireNonNull(secret, "secret");
        if (isUnresolvedReference(secret)) {
            throw new IllegalArgumentException("The signing key is an unresolved config provider reference; the"
                    + " configuration needs config.providers (e.g. config.providers=file with"
                    + " config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider)");
        }
        byte[] bytes = secret.getBytes(StandardCharsets.UTF_8);
        if (bytes.length < MIN_LENGTH_BYTES) {
            throw new IllegalArgumentException("A signing key needs at least " + MIN_LENGTH_BYTES + " bytes, this one"
                    + " has " + bytes.length + " (generate one with: openssl rand -base64 48)");
        }
        return new SigningKey(bytes);
    }

    /**
     * Whether {@code value} looks like a Kafka config provider reference, {@code ${provider:[path:]key}}, that
     * nothing resolved: using its text as the secret would sign with a key anyone can read in the configuration.
     */
    public static boolean isUnresolvedReference(String value) {
        return value.matches("(?s).*\\$\\{[^}]*:[^}]*}.*");
    }

    /** The key's id: the first 8 bytes of the SHA-256 of the secret, as 16 lowercase hex characters. */
    public String id() {
        return id;
    }

    /** The signature of a record with these key and value bytes, as 64 lowercase hex characters. */
    public String sign(byte[] key, byte[] value) {
        return HEX.formatHex(mac(key, value));
    }

    /** Whether {@code signature} (the header's bytes) is this key's signature of key and value; constant time. */
    boolean verifies(byte[] key, byte[] value, byte[] signature) {
        byte[] expected = sign(key, value).getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(expected, signature);
    }

    private byte[] mac(byte[] key, byte[] value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        Mac mac = macs.get();
        mac.update(ByteBuffer.allocate(4).putInt(key.length).array());
        mac.update(key);
        mac.update(ByteBuffer.allocate(4).putInt(value.length).array());
        mac.update(value);
        return mac.doFinal();
    }

    private Mac keyedMac() {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(secret);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is part of every Java 17 runtime", e);
        }
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is part of every Java 17 runtime", e);
        }
    }

    /** The id only: the secret never reaches a log. */
    @Override
    public String toString() {
        return "SigningKey[id=" + id + "]";
    }
}
