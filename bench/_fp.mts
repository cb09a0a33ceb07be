import { fingerprintOf } from '../src/platform/auth/api-key.ts';
console.log(fingerprintOf(process.argv[2]!));
