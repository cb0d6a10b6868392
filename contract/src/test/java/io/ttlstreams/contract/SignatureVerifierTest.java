package io.ttlstreams.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.OptionalLong;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

class SignatureVerifierTest {

    private static final SigningKey CURRENT = SigningKey.of("current-secret-of-at-least-32-bytes!!");
    private static final SigningKey PREVIOUS = SigningKey.of("previous-secret-of-at-least-32-bytes!");
    private static final byte[] KEY = bytes("{\"_id\": \"d1\"}");
    private static final byte[] VALUE =
            bytes("{\"_id\": {\"_id\": \"d1\"}, \"ns\": {\"db\": \"app\", \"coll\": \"s\"}}");

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static void verify(SignatureVerifier verifier, SigningKey signer, byte[] key, byte[] value) {
        verifier.verify(key, value, bytes(signer.id()), bytes(signer.sign(KEY, VALUE)));
    }

    @Test
    void shouldAcceptWhatTheKeySigned() {
        verify(new SignatureVerifier(List.of(CURRENT)), CURRENT, KEY, VALUE);
    }

    @Test
    void shouldAcceptThePreviousKeyWhileKeysRotate() {
        verify(new SignatureVerifier(List.of(CURRENT, PREVIOUS)), PREVIOUS, KEY, VALUE);
    }

    @Test
    void shouldRefuseATamperedValueOrKey() {
        SignatureVerifier verifier = new SignatureVerifier(List.of(CURRENT));
        byte[] tampered = VALUE.clone();
        tampered[tampered.length - 3] ^= 1;

        assertThatThrownBy(() -> verify(verifier, CURRENT, KEY, tampered))
                .isInstanceOf(InvalidDeleteCommandException.class)
                .hasMessageContaining("bad signature for key id " + CURRENT.id());
        assertThatThrownBy(() -> verify(verifier, CURRENT, bytes("{\"_id\": \"d2\"}"), VALUE))
                .hasMessageContaining("bad signature");
    }

    @Test
    void shouldRefuseACommandWhoseIssueTimeWasChangedOrRemovedAfterSigning() {
        SignatureVerifier verifier = new SignatureVerifier(List.of(CURRENT));
        DeleteCommand issued = command(OptionalLong.of(1_767_225_600_000L));
        byte[] key = bytes(issued.keyJson());
        byte[] keyId = bytes(CURRENT.id());
        byte[] signature = bytes(CURRENT.sign(key, bytes(issued.valueJson())));

        verifier.verify(key, bytes(issued.valueJson()), keyId, signature);
        assertThatThrownBy(() -> verifier.verify(
                        key, bytes(command(OptionalLong.of(1_767_229_200_000L)).valueJson()), keyId, signature))
                .isInstanceOf(InvalidDeleteCommandException.class)
                .hasMessageContaining("bad signature");
        assertThatThrownBy(() ->
                        verifier.verify(key, bytes(command(OptionalLong.empty()).valueJson()), keyId, signature))
                .isInstanceOf(InvalidDeleteCommandException.class)
                .hasMessageContaining("bad signature");
    }

    private static DeleteCommand command(OptionalLong issuedAt) {
        BsonDocument key = new BsonDocument("_id", new BsonString("d1"));
        return new DeleteCommand(key, key.clone(), Namespace.of("app", "s"), "s", 1_767_225_590_000L, issuedAt);
    }

    @Test
    void shouldNotLetBytesMoveBetweenKeyAndValue() {
        byte[] joined = (new String(KEY, StandardCharsets.UTF_8) + new String(VALUE, StandardCharsets.UTF_8))
                .getBytes(StandardCharsets.UTF_8);
        String signature = CURRENT.sign(KEY, VALUE);

        assertThat(CURRENT.sign(new byte[0], joined)).isNotEqualTo(signature);
        assertThat(CURRENT.sign(joined, new byte[0])).isNotEqualTo(signature);
    }

    @Test
    void shouldRefuseASignatureMadeWithAnotherSecretUnderTheTrustedKeyId() {
        SigningKey wrong = SigningKey.of("a-wrong-secret-that-is-long-enough-too");
        SignatureVerifier verifier = new SignatureVerifier(List.of(CURRENT));

        assertThatThrownBy(() -> verifier.verify(KEY, VALUE, bytes(CURRENT.id()), bytes(wrong.sign(KEY, VALUE))))
                .isInstanceOf(InvalidDeleteCommandException.class)
                .hasMessageContaining("bad signature");
    }

    @Test
    void shouldRefuseAnUnknownKeyId() {
        SignatureVerifier verifier = new SignatureVerifier(List.of(CURRENT));

        assertThatThrownBy(() -> verify(verifier, PREVIOUS, KEY, VALUE))
                .isInstanceOf(InvalidDeleteCommandException.class)
                .hasMessageContaining("key id '" + PREVIOUS.id() + "'")
                .hasMessageContaining("trusts [" + CURRENT.id() + "]");
    }

    @Test
    void shouldRefuseMissingHeaders() {
        SignatureVerifier verifier = new SignatureVerifier(List.of(CURRENT));

        assertThatThrownBy(() -> verifier.verify(KEY, VALUE, null, null))
                .isInstanceOf(InvalidDeleteCommandException.class)
                .hasMessageStartingWith("unsigned: the record has no ttl.signature header");
        assertThatThrownBy(() -> verifier.verify(KEY, VALUE, null, bytes(CURRENT.sign(KEY, VALUE))))
                .hasMessageContaining("no ttl.signature.key.id header");
    }

    @Test
    void shouldDeriveTheKeyIdFromTheSecretAndNeverPrintTheSecret() {
        String secret = "current-secret-of-at-least-32-bytes!!";

        assertThat(SigningKey.of(secret).id())
                .isEqualTo(CURRENT.id())
                .hasSize(16)
                .matches("[0-9a-f]{16}");
        assertThat(PREVIOUS.id()).isNotEqualTo(CURRENT.id());
        assertThat(CURRENT.sign(KEY, VALUE)).matches("[0-9a-f]{64}");
        assertThat(CURRENT.toString()).doesNotContain(secret).contains(CURRENT.id());
    }

    @Test
    void shouldRefuseShortSecretsAndUnresolvedReferences() {
        assertThatThrownBy(() -> SigningKey.of("0123456789012345678901234567890"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 32 bytes, this one has 31");
        assertThatThrownBy(() -> SigningKey.of("${file:/secrets/ttl-signing.properties:key}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unresolved config provider reference");
        assertThat(SigningKey.of("é".repeat(16)).id()).hasSize(16);
    }
}
