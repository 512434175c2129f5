package io.github.redislock.sample.demo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** The demo's HTTP client: plain HTTP/1.1 to the instances, one place for the "must answer 200" check. */
final class DemoHttp {

    final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    /**
     * @return the body of a 200 answer
     * @throws IllegalStateException naming the request and the answer when the status is not 200
     * @throws UncheckedIOException when the request fails
     */
    String send(HttpRequest request) throws InterruptedException {
        try {
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException(request.method() + " " + request.uri() + " answered "
                        + response.statusCode() + ": " + response.body());
            }
            return response.body();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(request.method() + " " + request.uri() + " failed", ex);
        }
    }
}
