// How a dataset is classified, in the words the relay config and the metadata manifest share: its sensitivity
// (which drives aggregate protections), its access rights and its update frequency (both published in DCAT).
import { z } from 'zod';

export const sensitivity = z
  .enum(['public', 'internal', 'personal', 'confidential', 'secret'])
  .default('internal');

export const accessRights = z.enum(['public', 'restricted', 'non_public']).default('restricted');

export const updateFrequency = z
  .enum([
    'continuous',
    'daily',
    'weekly',
    'termly',
    'monthly',
    'quarterly',
    'annual',
    'irregular',
    'as_needed',
    'unknown',
  ])
  .default('unknown');
