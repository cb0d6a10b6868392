package io.ttlstreams.secrets;

import java.net.URI;
import java.net.URISyntaxException;
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
        if (url.getRawUserInfo() == null) {
            return url;
        }
        String authority = url.getRawAuthority();
        StringBuilder text = new StringBuilder()
                .append(url.getScheme())
                .append("://")
                .append(authority, authority.lastIndexOf('@') + 1, authority.length());
        if (url.getRawPath() != null) {
            text.append(url.getRawPath());
        }
        if (url.getRawQuery() != null) {
            text.append('?').append(url.getRawQuery());
        }
        if (url.getRawFragment() != null) {
            text.append('#').append(url.getRawFragment());
        }
        try {
            return new URI(text.toString());
        } catch (URISyntaxException e) {
            // The parts come from a parsed URI, so they form one again.
            throw new IllegalStateException("Cannot remove the user info of a URL: " + e.getReason(), e);
        }
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
