// Prints Weka 3.6's AODE class distributions at full precision (tests/test_aode.py).
//
// The test compiles this file into its tmp_path at test time (never commit .class files):
//   javac -cp /usr/share/java/weka.jar -d TMP tests/weka/AodeDistributions.java
//   java -cp /usr/share/java/weka.jar:TMP AodeDistributions train.arff test.arff out.csv [...]
// Arguments come in triples (train ARFF, test ARFF, output CSV); the class is the last
// attribute. AODE runs with Weka's defaults (frequency limit 1, Laplace estimates). Each
// output line holds one test row's distribution, Double.toString (round-trip exact).

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.FileReader;
import java.io.FileWriter;
import java.io.PrintWriter;

import weka.classifiers.bayes.AODE;
import weka.core.Instances;

public class AodeDistributions {
  private static Instances read(String path) throws Exception {
    try (BufferedReader reader = new BufferedReader(new FileReader(path))) {
      Instances data = new Instances(reader);
      data.setClassIndex(data.numAttributes() - 1);
      return data;
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 0 || args.length % 3 != 0) {
      System.err.println("usage: AodeDistributions train.arff test.arff out.csv [...]");
      System.exit(2);
    }
    for (int k = 0; k < args.length; k += 3) {
      Instances train = read(args[k]);
      Instances test = read(args[k + 1]);
      AODE aode = new AODE();
      aode.buildClassifier(train);
      try (PrintWriter out = new PrintWriter(new BufferedWriter(new FileWriter(args[k + 2])))) {
        for (int r = 0; r < test.numInstances(); r++) {
          double[] dist = aode.distributionForInstance(test.instance(r));
          StringBuilder line = new StringBuilder();
          for (int c = 0; c < dist.length; c++) {
            if (c > 0) {
              line.append(',');
            }
            line.append(Double.toString(dist[c]));
          }
          out.println(line);
        }
      }
    }
  }
}
