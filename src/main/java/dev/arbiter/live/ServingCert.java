package dev.arbiter.live;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.PemKeyCertOptions;
import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The certificate the secure metrics endpoint serves: {@code tls.crt} and {@code tls.key} (PEM) from a folder (a
 * mounted Secret, e.g. cert-manager's), else a self-signed one made at start-up for the names given, valid a year, as
 * controller-runtime's metrics server and kube-rbac-proxy do when given none (Prometheus then scrapes with
 * {@code insecure_skip_verify}, or trusts the Secret's CA).
 */
public final class ServingCert {
    private ServingCert() {}

    /** The key and certificate of {@code dir}, or a self-signed pair for {@code names} when {@code dir} is null. */
    public static PemKeyCertOptions of(Path dir, List<String> names) throws IOException {
        if (dir != null) {
            Path crt = dir.resolve("tls.crt"), key = dir.resolve("tls.key");
            for (Path p : List.of(crt, key)) {
                if (!Files.isReadable(p)) throw new IOException("--metrics-cert-dir: " + p + ": not a readable file");
            }
            return new PemKeyCertOptions().setCertValue(Buffer.buffer(Files.readAllBytes(crt)))
                    .setKeyValue(Buffer.buffer(Files.readAllBytes(key)));
        }
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
            g.initialize(2048);
            KeyPair pair = g.generateKeyPair();
            Instant now = Instant.now();
            X500Name subject = new X500Name("CN=" + names.get(0));
            JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(subject,
                    new BigInteger(64, new SecureRandom()), Date.from(now.minus(Duration.ofMinutes(5))),
                    Date.from(now.plus(Duration.ofDays(365))), subject, pair.getPublic());
            GeneralName[] sans = names.stream().map(n -> n.matches("[0-9.:]+")
                    ? new GeneralName(GeneralName.iPAddress, n) : new GeneralName(GeneralName.dNSName, n))
                    .toArray(GeneralName[]::new);
            b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(sans));
            X509CertificateHolder cert = b.build(new JcaContentSignerBuilder("SHA256withRSA").build(pair.getPrivate()));
            return new PemKeyCertOptions().setCertValue(Buffer.buffer(pem(cert))).setKeyValue(Buffer.buffer(pem(pair.getPrivate())));
        } catch (NoSuchAlgorithmException | OperatorCreationException | CertIOException e) {
            throw new IOException("cannot make a self-signed certificate for the metrics endpoint: " + e.getMessage(), e);
        }
    }

    private static String pem(Object o) throws IOException {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(out)) {
            w.writeObject(o);
        }
        return out.toString();
    }
}
