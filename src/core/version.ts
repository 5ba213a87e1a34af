/** The SDK version; kept equal to package.json's by a test. */
export const VERSION = '0.2.0';
