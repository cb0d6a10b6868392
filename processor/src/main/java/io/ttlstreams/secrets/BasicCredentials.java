package io.ttlstreams.secrets;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.config.types.Password;

/**
 * A user name and password for HTTP Basic authentication. The password is a Kafka {@link Password}, which prints as
 * {@code [hidden]}, so the credentials can be logged or put in a message without giving the password away.
 *
 * @param username the user name, may be empty
 * @param password the password, may be empty, never {@code null}
 */
public record BasicCredentials(String username, Password password) {

    public BasicCredentials {
        Objects.requireNonNull(username, "username");
        Objects.requireNonNull(password, "password");
        Objects.requireNonNull(password.value(), "password");
    }

    /**
     * The credentials in the user info of {@code url} ({@code http://user:password@host}), percent-decoded; without a
     * {@code :}, the whole user info is the user name and the password is empty. Empty when the URL has no user info.
     */
    public static Optional<BasicCredentials> fromUserInfo(URI url) {
        String userInfo = url.getRawUserInfo();
        if (userInfo == null) {
            return Optional.empty();
        }
        int colon = userInfo.indexOf(':');
        String username = colon < 0 ? userInfo : userInfo.substring(0, colon);
        String password = colon < 0 ? "" : userInfo.substring(colon + 1);
        return Optional.of(new BasicCredentials(percentDecode(username), new Password(percentDecode(password))));
    }

    /** {@code url} without its user info, safe to print. */
    public static URI withoutUserInfo(URI url) {
        String userInfo = url.getRawUserInfo();
        if (userInfo == null) {
            return url;
        }
        // The text of a URI with user info starts with "scheme://userinfo@", as it was written.
        String text = url.toString();
        int start = url.getScheme().length() + "://".length();
        return URI.create(text.substring(0, start) + text.substring(start + userInfo.length() + 1));
    }

    /** The value of an {@code Authorization} header carrying these credentials. */
    public String authorizationHeader() {
        String pair = username + ":" + password.value();
        return "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * RFC 3986 decoding: {@code %XX} as UTF-8 bytes, and a {@code +} stays a plus, unlike in form data. A parsed
     * {@link URI} has well-formed escapes only.
     */
    private static String percentDecode(String text) {
        return URLDecoder.decode(text.replace("+", "%2B"), StandardCharsets.UTF_8);
    }
}
